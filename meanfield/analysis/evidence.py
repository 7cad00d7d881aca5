"""What a classification looks at: the evidence measured on one trailing window of a series.

:func:`measure` turns a series (and optional Lyapunov exponents) into a flat dict of numbers, :data:`EVIDENCE`;
:func:`meanfield.analysis.classify.decide` turns that dict into a label. A sweep's workers store the numbers,
so labels can be re-decided later under other thresholds without re-running anything. docs/classification.md
describes every quantity, the window and the tolerances (§1–§6).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Any

import numpy as np

from meanfield.analysis.chaos01 import band_count, chaos01_test
from meanfield.analysis.correlation import dominant_lag
from meanfield.analysis.period import column_ranges, find_cycle, lag_residual, rounding_floor
from meanfield.analysis.regularity import birkhoff_drift
from meanfield.analysis.rotation import locked_rotation
from meanfield.analysis.sections import distinct_count, poincare_section
from meanfield.analysis.slow_cycles import near_cycle
from meanfield.analysis.spectra import power_spectrum, spectral_entropy
from meanfield.analysis.tori import line_frequencies, rational_period, section_curve_spread, torus_generators
from meanfield.errors import AnalysisError, ConfigError
from meanfield.short_repr import short_repr

#: Evidence keys, in the order a sweep stores them (one float per key; None is stored as NaN).
EVIDENCE = ("lambda1", "lambda1_stderr", "lambda2", "lambda2_stderr", "max_abs", "amplitude", "window",
            "transient_end", "period", "period_repeats", "period_residual", "period_decay", "birkhoff_drift",
            "torus_dim", "frequency1", "frequency2", "frequency3", "line_period", "curve_spread", "chaos01_k",
            "bands", "acf_lag", "spectral_entropy", "distinct_count", "section_points", "forcing_period",
            "feature", "drive_features", "near_period", "near_spread", "near_decay", "near_residual")

#: A feature moves when its peak-to-peak exceeds this many rounding units of its own magnitude (a feature that
#: has collapsed onto a fixed value only flickers by a few units, docs/classification.md §1).
MOVING_ULPS = 1e3


@short_repr
@dataclass(frozen=True)
class Thresholds:
    """How the evidence is measured and how a label is decided from it (docs/classification.md gives the
    justification of every default).

    Attributes
    ----------
    min_length : int
        Shortest accepted series (200 samples: 20 repetitions of a period 10, 100 points for the 0–1 test).
    bound : float
        ``|x|`` above this is ``divergent`` (the model's fields are bounded by 1; 1e6 for generic maps).
    window_fraction, window_min : float, int
        The decision window is the last ``max(window_fraction · n, window_min)`` samples (all of them when the
        series is shorter): long enough for ten repetitions of periods up to a tenth of it and for converged
        weighted Birkhoff averages, late enough to leave a transient of up to ¾ of the run behind (§1).
    period_rtol : float
        Rounding floor of a cycle's residual relative to the window's ``max |x|`` (§2).
    converged_rtol, converge_decades, converge_r2 : float
        A converging cycle's residual must decay geometrically (R² of the log-envelope ≥ ``converge_r2``) by at
        least ``converge_decades`` decades to at most ``converged_rtol · max |x|`` (§2).
    min_repeats : int
        A period counts only if the window holds at least this many repetitions of it (§2).
    max_period : int or None
        Largest period tried (None: half the window).
    birkhoff_tol, birkhoff_chaotic : float
        Weighted-Birkhoff drift (relative) at or below which a 10 000-sample window is regular, and above
        which it is irregular; the first scales like (10 000 / window)² (tori converge faster than any
        power), the second like (10 000 / window)^½ (chaotic averages converge like N^(−½)). In between
        (a torus near a resonance, weak chaos) the exponents decide (§3).
    frequency_tol : float
        Tolerance (cycles/step) for a spectral line to be an integer combination of the torus generators (§4).
    rational_tol : float
        A generator within this of a fraction with a denominator ≤ min(window/10, 1000) is rational (§4).
    max_torus_dim : int
        Most independent frequencies (besides the forcing) of a quasi-periodic orbit.
    curve_tol : float
        Largest spread of the section points within a cell of the torus phases, relative to their extent (§4).
    near_spread : float
        An orbit whose sub-series at a lag p ≤ min(window / ``min_repeats``, 1000) all stay within this
        fraction of the extent is concentrated near p points (§4, slow cycles).
    near_decay : float
        Decades by which the motion of such an orbit must slow down (or speed up) across the window for it to
        be a slow approach to a p-cycle (or a laminar phase leaving one), not a torus; one that moves less than
        π · window · ``rational_tol`` of the extent is not a torus either: no rotation is resolved (§4).
    spectrum_samples : int
        Line frequencies are measured on the last this many samples of the window (§4).
    k_chaotic : float
        0–1 test: ``K`` above this votes chaotic (§5).
    max_bands : int
        Largest band count tried, and largest autocorrelation lag the 0–1 test sub-samples at (§5).
    lyap_zero : float
        ``|λ|`` at or below this counts as zero when no standard error is given (the reference's 1e-4).
    lyap_rounding : float
        ``|λ|`` at or below this is zero whatever its standard error: the rounding floor of a finite-time
        exponent (§6).
    z : float
        Significance, in standard errors, of an exponent's sign (§6).
    chaos01_samples : int
        The 0–1 test and the spectral entropy use the last this many samples of the window.
    chaos01_n_c : int
        Number of random c of the 0–1 test (§5).
    seed : int
        Seed of the 0–1 test's c (reproducible labels).
    distinct_scale : float
        Quantisation scale of the distinct and section counts (the reference's [−1, 1], docs/model.md).
    """

    min_length: int = 200
    bound: float = 1e6
    window_fraction: float = 0.25
    window_min: int = 10_000
    period_rtol: float = 1e-10
    converged_rtol: float = 1e-6
    converge_decades: float = 1.0
    converge_r2: float = 0.95
    min_repeats: int = 10
    max_period: int | None = None
    birkhoff_tol: float = 1e-8
    birkhoff_chaotic: float = 1e-4
    frequency_tol: float = 1e-6
    rational_tol: float = 1e-9
    max_torus_dim: int = 3
    curve_tol: float = 0.25
    near_spread: float = 1e-2
    near_decay: float = 0.05
    spectrum_samples: int = 16_384
    k_chaotic: float = 0.8
    max_bands: int = 100
    lyap_zero: float = 1e-4
    lyap_rounding: float = 1e-12
    z: float = 3.0
    chaos01_samples: int = 10_000
    chaos01_n_c: int = 16
    seed: int = 0
    distinct_scale: float = 1.0

    def __post_init__(self) -> None:
        positive = ("bound", "period_rtol", "converged_rtol", "converge_decades", "birkhoff_tol",
                    "birkhoff_chaotic", "frequency_tol", "rational_tol", "curve_tol", "lyap_zero", "lyap_rounding",
                    "distinct_scale", "near_spread", "near_decay")
        bad = [f"{n}={getattr(self, n)!r} (must be > 0)" for n in positive if not getattr(self, n) > 0]
        for name, low in (("min_length", 16), ("window_min", 16), ("min_repeats", 2), ("max_torus_dim", 1),
                          ("spectrum_samples", 16), ("max_bands", 1), ("chaos01_samples", 100), ("chaos01_n_c", 1)):
            if not getattr(self, name) >= low:
                bad.append(f"{name}={getattr(self, name)!r} (must be >= {low})")
        if not 0 < self.window_fraction <= 1 or not 0 <= self.converge_r2 <= 1:
            bad.append(f"window_fraction={self.window_fraction!r} in (0, 1] and converge_r2={self.converge_r2!r} "
                       "in [0, 1] required")
        if not 0 <= self.k_chaotic <= 1 or not self.z >= 0:
            bad.append(f"k_chaotic={self.k_chaotic!r} in [0, 1] and z={self.z!r} >= 0 required")
        if self.max_period is not None and self.max_period < 1:
            bad.append(f"max_period={self.max_period!r} (must be None or >= 1)")
        if bad:
            raise AnalysisError("Thresholds: " + "; ".join(bad))

    def window(self, n: int) -> int:
        """Length of the decision window of an n-sample series."""
        return min(n, max(int(self.window_fraction * n), self.window_min))

    def regularity(self, drift: float, window: int) -> str:
        """"regular", "grey" or "irregular": what a weighted-Birkhoff drift measured on a window says."""
        if drift <= self.birkhoff_tol * (10_000 / window) ** 2:
            return "regular"
        return "grey" if drift <= self.birkhoff_chaotic * (10_000 / window) ** 0.5 else "irregular"


def _transient_end(y: np.ndarray, window: np.ndarray, ranges: tuple, cycle, floor: float) -> int | None:
    """First sample from which the series stays on the attractor: for a cycle, from where its residual stays
    at the floor (None while it is still converging); otherwise the sample after the last one of the head
    outside the window's box (``ranges``: its per-feature minima and maxima) widened by 10 % of its extent per
    feature."""
    head = y.shape[0] - window.shape[0]
    if cycle.period is not None:
        if cycle.settled_at is None:
            return None
        if cycle.settled_at > 0 or head == 0:
            return head + cycle.settled_at
        above = np.flatnonzero(lag_residual(y, cycle.period) > floor)
        return 0 if above.size == 0 else int(above[-1]) + 1
    lo, hi = ranges
    margin = 0.1 * (hi - lo)
    outside = np.flatnonzero(np.any((y[:head] < lo - margin) | (y[:head] > hi + margin), axis=1))
    return 0 if outside.size == 0 else int(outside[-1]) + 1


def _exponent_evidence(ev: dict, lam: np.ndarray | None, se: np.ndarray | None) -> None:
    if lam is None or lam.size == 0:
        return
    # a NaN exponent (a run that broke down) is recorded as +inf: stored evidence uses NaN for "absent"
    lam = np.where(np.isnan(lam), np.inf, lam)
    ev["lambda1"] = float(lam[0])
    ev["lambda2"] = float(lam[1]) if lam.size > 1 else None
    if se is not None:
        for key, i in (("lambda1_stderr", 0), ("lambda2_stderr", 1)):
            if i < min(lam.size, se.size) and np.isfinite(se[i]):  # NaN: not estimated (one block)
                ev[key] = float(se[i])


def moving_features(extent: np.ndarray, magnitude: np.ndarray) -> np.ndarray:
    """Indices of the features whose peak-to-peak ``extent`` is above their rounding (:data:`MOVING_ULPS`
    units of their largest absolute value, ``magnitude``)."""
    return np.flatnonzero(extent > MOVING_ULPS * np.finfo(np.float64).eps * magnitude)


def _lines(window: np.ndarray, moving: np.ndarray, th: Thresholds) -> np.ndarray:
    """The spectral lines of every moving feature, strongest feature's first (a torus may show one of its
    frequencies in one feature only)."""
    tail = window[-th.spectrum_samples:]
    found = [line_frequencies(tail[:, f])[0] for f in moving]
    return np.concatenate(found) if found else np.zeros(0)


def _torus_evidence(ev: dict, window: np.ndarray, moving: np.ndarray, q: int, th: Thresholds) -> None:
    """Torus generators of the spectral lines of every moving feature, whether they are rational, and the
    section's curve."""
    gens = torus_generators(_lines(window, moving, th), q, tol=th.frequency_tol, max_dim=th.max_torus_dim)
    ev["torus_dim"] = len(gens)
    for i, g in enumerate(gens[:3]):
        ev[f"frequency{i + 1}"] = g
    if 1 <= len(gens) <= th.max_torus_dim:
        ev["line_period"] = rational_period(gens, q, min(window.shape[0] // 10, 1000), th.rational_tol)
        ev["curve_spread"] = section_curve_spread(window, gens, q)


def _locked_evidence(ev: dict, window: np.ndarray, period: int, q: int) -> None:
    """A cycle locked on an invariant circle (:func:`~meanfield.analysis.rotation.locked_rotation` on its points
    every q samples, k = period / gcd(period, q) of them): ``frequency1`` its rotation p/k per q samples, as
    cycles per sample folded to [0, 1/(2q)] (a torus's generator, docs/classification.md §4)."""
    span = period * q // gcd(period, q)
    if window.shape[0] < span:
        return
    locked = locked_rotation(window[-span:][::q])
    if locked is not None:
        ev["frequency1"] = locked[0] / locked[1] / q


def _near_cycle_evidence(ev: dict, window: np.ndarray, th: Thresholds) -> None:
    """The lag near whose cycle a regular-looking window without a period is concentrated, if any: a slow
    cycle (multiplier near 1) or a laminar phase, not a torus (docs/classification.md §4)."""
    near = near_cycle(window, th.near_spread, min(window.shape[0] // th.min_repeats, 1000), th.period_rtol)
    if near.period is not None:
        ev["near_period"], ev["near_spread"] = near.period, near.spread
        ev["near_decay"], ev["near_residual"] = near.decay, near.residual


def _quasi_periodic_drive(window: np.ndarray, moving: np.ndarray, th: Thresholds) -> int:
    """Moving features of an irregular series that are regular and aperiodic on their own: a quasi-periodic
    drive under the irregularity (docs/classification.md §5). Strange nonchaotic attractors of
    quasi-periodically forced maps show one; so may chaos driven quasi-periodically — the series alone cannot
    tell them apart."""
    count = 0
    for f in moving:
        column = window[:, f:f + 1]
        if th.regularity(birkhoff_drift(column), window.shape[0]) == "regular" and \
                find_cycle(column, th.period_rtol, th.converged_rtol, th.converge_decades, th.converge_r2,
                           th.max_period).period is None:
            count += 1
    return count


def _chaos_evidence(ev: dict, x: np.ndarray, th: Thresholds, with_exponents: bool) -> None:
    """Band count, spectral entropy and (without exponents: with them it cannot change the label,
    docs/classification.md §6) the 0–1 test: the larger K of the series and of the series sub-sampled at its
    dominant autocorrelation lag (band chaos, or chaos shadowing a cycle next to a periodic window)."""
    tail = x[-th.chaos01_samples:]
    if tail.size < 200 or np.ptp(tail) == 0:
        return
    top = min(th.max_bands, tail.size // 100)
    ev["bands"] = band_count(tail, top)
    ev["acf_lag"] = lag = dominant_lag(tail, top)
    ev["spectral_entropy"] = spectral_entropy(power_spectrum(tail)[1])
    if not with_exponents:
        ev["chaos01_k"] = max(chaos01_test(tail, th.chaos01_n_c, th.seed),
                              chaos01_test(tail[::lag], th.chaos01_n_c, th.seed))


def measure(y: np.ndarray, lam: np.ndarray | None, se: np.ndarray | None, feature: int, section_feature: int,
            th: Thresholds, forcing_period: int = 1) -> dict[str, Any]:
    """Evidence about one validated series ``y`` (time, features) and optional exponents (keys :data:`EVIDENCE`).

    Everything is measured on the decision window (``th.window(n)`` trailing samples): amplitude, the cycle
    (:func:`~meanfield.analysis.period.find_cycle`), and only when there is none the weighted-Birkhoff drift,
    then unless clearly irregular the torus (line frequencies, generators, rationality, section curve) and the
    period it is concentrated near (a slow cycle), and
    unless clearly regular the band count, dominant lag, spectral entropy and (without exponents) 0–1 test.
    ``transient_end`` says where the approach to the attractor ended. Uses ``th`` for how to measure;
    :func:`~meanfield.analysis.classify.decide` applies the decision thresholds. Never raises on finite or divergent
    input.
    """
    q = int(forcing_period)
    ev: dict[str, Any] = dict.fromkeys(EVIDENCE)
    ev["forcing_period"] = q
    _exponent_evidence(ev, lam, se)
    finite = np.isfinite(y)
    ev["max_abs"] = float(np.max(np.abs(y))) if np.all(finite) else float("inf")
    if not ev["max_abs"] <= th.bound:
        return ev
    n = y.shape[0]
    window = np.ascontiguousarray(y[-th.window(n):])
    ev["window"] = window.shape[0]
    ranges = column_ranges(window)
    extent = ranges[1] - ranges[0]
    magnitude = np.maximum(np.abs(ranges[0]), np.abs(ranges[1]))
    moving = moving_features(extent, magnitude)
    if feature not in moving and moving.size:       # the asked feature has collapsed: use the one that moves most
        with np.errstate(divide="ignore", invalid="ignore"):    # a deviation that underflows to 0 ranks first
            feature = int(moving[np.argmax(extent[moving] / np.std(window[:, moving], axis=0))])
    ev["feature"] = feature
    x = window[:, feature]
    ev["amplitude"] = float(np.max(extent))
    cycle = find_cycle(window, th.period_rtol, th.converged_rtol, th.converge_decades, th.converge_r2, th.max_period)
    ev["period"] = cycle.period
    if cycle.period is not None:
        ev["period_repeats"], ev["period_residual"], ev["period_decay"] = cycle.repeats, cycle.residual, cycle.decay
        _locked_evidence(ev, window, int(cycle.period), q)
    ev["transient_end"] = _transient_end(y, window, ranges, cycle, rounding_floor(
        float(np.max(magnitude)), ev["amplitude"], th.period_rtol))
    if cycle.period is None:
        ev["birkhoff_drift"] = birkhoff_drift(window)
        regularity = th.regularity(ev["birkhoff_drift"], window.shape[0])
        if regularity != "irregular":
            _torus_evidence(ev, window, moving, q, th)
            _near_cycle_evidence(ev, window, th)
        else:
            ev["drive_features"] = _quasi_periodic_drive(window, moving, th)
        if regularity != "regular":
            _chaos_evidence(ev, x, th, ev["lambda1"] is not None)
    ev["distinct_count"] = distinct_count(x, th.distinct_scale)
    if window.shape[1] > 1:
        cut = poincare_section(window, section_feature)[:, feature]
        ev["section_points"] = distinct_count(cut, th.distinct_scale) if cut.size else 0
    return ev


def settled_period(series: np.ndarray, max_period: int) -> int:
    """The period the classifier's cycle criterion (:func:`~meanfield.analysis.period.find_cycle` with the default
    :class:`Thresholds`, docs/classification.md §2) finds in ``series``, the orbit tools' default period; a
    ConfigError asking for ``period`` when it finds none (the series is not near a cycle)."""
    th = Thresholds()
    cycle = find_cycle(series, th.period_rtol, th.converged_rtol, th.converge_decades, th.converge_r2, max_period)
    if cycle.period is None:
        raise ConfigError(f"period = None is not allowed here: no cycle of period ≤ {max_period} found from this "
                          "start; pass period= (and a state near the cycle)")
    return cycle.period
