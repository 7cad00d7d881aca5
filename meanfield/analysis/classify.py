"""Automatic attractor classification from a series and, optionally, Lyapunov exponents.

The paper tells attractors apart by eye, by a distinct-value count (spec §4.2, §4.4) and by the sign of the
leading exponents (spec §4.1, threshold 1e-4). Here independent criteria vote, and disagreement or a
statistically unresolved exponent gives ``unresolved`` instead of a guess:

1. **Series** (feature rows of the tail, time on axis 0):
   NaN/inf or ``|x| > bound`` → ``divergent``; peak-to-peak amplitude ``< fixed_point_amplitude`` or period 1
   → ``fixed_point``; a period ``p ≥ 2`` within ``period_tol`` (:func:`detect_period`, all features) →
   ``periodic``; otherwise the 0–1 test (Gottwald & Melbourne 2009) on the chosen feature: ``K <
   k_regular`` → ``quasi_periodic``, ``K > k_chaotic`` → ``chaotic``, in between: no vote.
2. **Lyapunov** (descending exponents, optional standard errors; Benettin et al. 1980): with
   ``m = max(lyap_zero, z·SE)``, ``λ1 < −m`` → regular (fixed point or periodic), ``λ1 > m`` → chaotic
   (``hyperchaotic`` when also ``λ2 > max(lyap_zero, z·SE2)``), ``|λ1| ≤ lyap_zero`` with ``z·SE ≤
   lyap_zero`` → zero (quasi-periodic); anything else (``|λ1|`` within ``z·SE`` but the error bar wider than
   ``lyap_zero``) → ``unresolved``.
3. The label is the series label refined by the exponents (fixed point / periodic need λ1 < 0,
   quasi-periodic λ1 ≈ 0, chaotic λ1 > 0); when the series gives no vote the exponents decide, except that
   λ1 < 0 with no period found is ``unresolved`` (period longer than the tail, or a slow transient).

Spectral entropy, the reference's distinct count and the section point count are reported as evidence only.

Known limitation: band chaos (chaos on p bands visited in a fixed cycle, e.g. the logistic map at r ≈ 3.57,
3.74) can give ``K ≈ 0`` because the band cycle dominates the observable; with exponents it ends up
``unresolved`` (not mislabelled), without them ``quasi_periodic``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from meanfield.analysis._input import as_series
from meanfield.analysis.chaos01 import chaos01_test
from meanfield.analysis.period import detect_period
from meanfield.analysis.sections import distinct_count, poincare_section, quantise
from meanfield.analysis.spectra import power_spectrum, spectral_entropy
from meanfield.errors import AnalysisError

LABELS = ("fixed_point", "periodic", "quasi_periodic", "chaotic", "hyperchaotic", "unresolved", "divergent")
"""Every label :func:`classify` can return."""


@dataclass(frozen=True)
class Thresholds:
    """Decision thresholds of :func:`classify` (all configurable; defaults justified per field).

    Attributes
    ----------
    min_length : int
        Shortest accepted tail (200: the 0–1 test needs N/10 ≥ 20 lags, period detection 2 periods).
    bound : float
        ``|x|`` above this is ``divergent`` (the model's fields are bounded by 1; 1e6 for generic maps).
    fixed_point_amplitude : float
        Peak-to-peak amplitude (over all features) below which the tail is a fixed point. 1e-3 ≈ 2.5 bins
        of the reference's 5001-level quantisation on [−1, 1]; it absorbs the O(ε) period-P ripple that the
        positional encoding imposes on the model's fixed point (β = 0.5: |mo_se| < 3e-4, spec §8).
    period_tol : float
        Absolute tolerance of :func:`detect_period` (the β = 2.5 fixture is periodic to 6e-7 after step 1500).
    max_period : int or None
        Largest period tried (None: half the tail).
    k_regular, k_chaotic : float
        0–1 test: ``K`` below ``k_regular`` votes regular, above ``k_chaotic`` chaotic (finite-N values of
        K for regular/chaotic maps lie well within 0.1 of 0 and 1 for N ≥ 2000; Gottwald & Melbourne 2009).
    lyap_zero : float
        ``|λ|`` at or below this counts as zero (the reference's 1e-4, spec §4.1).
    z : float
        Significance in standard errors for the sign of an exponent.
    chaos01_samples : int
        The 0–1 test uses at most this many of the last samples (cost O(N log N) per c).
    chaos01_n_c : int
        Number of random c of the 0–1 test.
    seed : int
        Seed of the 0–1 test's c (reproducible labels).
    distinct_scale : float
        Quantisation scale of the distinct and section counts (the reference's [−1, 1], spec §4.4).
    """

    min_length: int = 200
    bound: float = 1e6
    fixed_point_amplitude: float = 1e-3
    period_tol: float = 1e-5
    max_period: int | None = None
    k_regular: float = 0.2
    k_chaotic: float = 0.8
    lyap_zero: float = 1e-4
    z: float = 3.0
    chaos01_samples: int = 10_000
    chaos01_n_c: int = 100
    seed: int = 0
    distinct_scale: float = 1.0

    def __post_init__(self) -> None:
        positive = ("bound", "fixed_point_amplitude", "period_tol", "lyap_zero", "distinct_scale")
        bad = [f"{n}={getattr(self, n)!r} (must be > 0)" for n in positive if not getattr(self, n) > 0]
        if self.min_length < 1 or self.chaos01_n_c < 1 or self.chaos01_samples < 100:
            bad.append("min_length, chaos01_n_c >= 1 and chaos01_samples >= 100 required")
        if not self.k_regular <= self.k_chaotic or not self.z >= 0:
            bad.append(f"k_regular={self.k_regular} <= k_chaotic={self.k_chaotic} and z={self.z} >= 0 required")
        if self.max_period is not None and self.max_period < 1:
            bad.append(f"max_period={self.max_period!r} (must be None or >= 1)")
        if bad:
            raise AnalysisError("Thresholds: " + "; ".join(bad))


@dataclass(frozen=True)
class Classification:
    """Result of :func:`classify`.

    Attributes
    ----------
    label : str
        One of :data:`LABELS`.
    period : int or None
        The period, in samples of the given series (recorded rows when decimated), when
        ``label == "periodic"``, else None.
    reason : str
        One sentence on how the label was reached (which criteria agreed or disagreed).
    evidence : Mapping
        Read-only: ``lambda1``, ``lambda1_stderr``, ``lambda2``, ``lambda2_stderr``, ``period`` (detected,
        any label), ``amplitude`` (peak-to-peak), ``chaos01_k``, ``spectral_entropy`` (these two only for
        aperiodic tails), ``distinct_count`` (reference heuristic), ``section_points`` (distinct quantised
        values at upward zero crossings of ``section_feature``). None where not computed.
    """

    label: str
    period: int | None
    reason: str
    evidence: Mapping[str, Any]


def _lyapunov_vote(lam: np.ndarray | None, se: np.ndarray | None, th: Thresholds) -> tuple[str | None, str]:
    """Vote of the exponents: 'negative', 'zero', 'chaotic', 'hyperchaotic', 'unresolved' or None (absent)."""
    if lam is None or lam.size == 0:
        return None, "no exponents"
    err = np.zeros(lam.size) if se is None else se
    margin = np.maximum(th.lyap_zero, th.z * err)
    text = f"λ1 = {lam[0]:.3g} ± {err[0]:.2g}"
    if lam[0] > margin[0]:
        hyper = lam.size > 1 and lam[1] > margin[1]
        return ("hyperchaotic" if hyper else "chaotic"), text
    if lam[0] < -margin[0]:
        return "negative", text
    if abs(lam[0]) <= th.lyap_zero and margin[0] <= th.lyap_zero:
        return "zero", text
    return "unresolved", text + " (sign not resolved)"


_AGREES = {
    "fixed_point": {"negative"},
    "periodic": {"negative"},
    "quasi_periodic": {"zero"},
    "chaotic": {"chaotic", "hyperchaotic"},
}


#: Evidence keys, in the order a sweep stores them (one float per key; None is stored as NaN).
EVIDENCE = ("lambda1", "lambda1_stderr", "lambda2", "lambda2_stderr", "period", "amplitude", "max_abs",
            "chaos01_k", "spectral_entropy", "distinct_count", "section_points")


def measure(y: np.ndarray, lam: np.ndarray | None, se: np.ndarray | None, feature: int, section_feature: int,
            th: Thresholds) -> dict[str, Any]:
    """Evidence about one validated tail ``y`` (time, features) and optional exponents (keys :data:`EVIDENCE`).

    Uses ``th`` only for how to measure (period tolerance, 0–1 test length and seed, quantisation scale); the
    decision thresholds are applied by :func:`decide`, so stored evidence can be re-decided cheaply.
    """
    ev: dict[str, Any] = dict.fromkeys(EVIDENCE)
    if lam is not None and lam.size:
        # a NaN exponent (a run that broke down) is recorded as +inf: stored evidence uses NaN for "absent"
        lam = np.where(np.isnan(lam), np.inf, lam)
        ev["lambda1"] = float(lam[0])
        ev["lambda2"] = float(lam[1]) if lam.size > 1 else None
        if se is not None:
            ev["lambda1_stderr"] = float(se[0])
            ev["lambda2_stderr"] = float(se[1]) if se.size > 1 else None
    if not np.all(np.isfinite(y)):
        ev["max_abs"] = float("inf")
        return ev
    ev["max_abs"] = float(np.max(np.abs(y)))
    x = y[:, feature]
    ev["amplitude"] = float(np.max(np.ptp(y, axis=0)))
    ev["period"] = period = detect_period(y, th.period_tol, th.max_period)
    ev["distinct_count"] = distinct_count(x, th.distinct_scale)
    if y.shape[1] > 1:
        cut = poincare_section(y, section_feature)[:, feature]
        ev["section_points"] = int(np.unique(quantise(cut, th.distinct_scale)).size)
    if period is None and ev["amplitude"] >= th.fixed_point_amplitude:
        tail = x[-th.chaos01_samples :]
        ev["chaos01_k"] = chaos01_test(tail, th.chaos01_n_c, th.seed)
        ev["spectral_entropy"] = spectral_entropy(power_spectrum(tail)[1])
    return ev


def decide(evidence: Mapping[str, Any], th: Thresholds = Thresholds()) -> Classification:
    """The label from measured evidence (rules of the module docstring)."""
    ev = dict(evidence)

    def get(key):
        value = ev.get(key)
        return None if value is None or (isinstance(value, float) and np.isnan(value)) else value

    def done(label: str, reason: str, period: int | None = None) -> Classification:
        return Classification(label, period, reason, MappingProxyType(ev))

    max_abs = get("max_abs")
    if max_abs is None or not np.isfinite(max_abs) or max_abs > th.bound:
        return done("divergent", f"series has NaN/inf or |x| > {th.bound:g}")
    lam = None if get("lambda1") is None else np.array([ev["lambda1"]] + ([ev["lambda2"]] if get("lambda2") is not None else []))
    se = None
    if lam is not None and get("lambda1_stderr") is not None:
        se = np.array([ev["lambda1_stderr"]] + ([ev["lambda2_stderr"]] if get("lambda2") is not None else []))
        se = np.nan_to_num(se, nan=0.0)
    if lam is not None and np.any(np.isnan(lam) | (lam == np.inf)):
        return done("divergent", "Lyapunov exponents are NaN or +inf")
    amplitude, period, k = get("amplitude"), get("period"), get("chaos01_k")
    period = None if period is None else int(period)
    if amplitude < th.fixed_point_amplitude or period == 1:
        series, text = "fixed_point", f"amplitude {amplitude:.2g}"
    elif period is not None:
        series, text = "periodic", f"period {period}"
    elif k is None:
        series, text = None, "aperiodic, no 0-1 test"
    else:
        series = "quasi_periodic" if k < th.k_regular else "chaotic" if k > th.k_chaotic else None
        text = f"aperiodic, 0-1 K = {k:.2f}"
    vote, ltext = _lyapunov_vote(lam, se, th)
    reason = f"{text}; {ltext}"
    if vote is None:
        return done(series or "unresolved", reason, period if series == "periodic" else None)
    if vote == "unresolved":
        return done("unresolved", reason)
    if series is None:
        label = {"zero": "quasi_periodic", "negative": "unresolved"}.get(vote, vote)
        return done(label, reason + " (0-1 test inconclusive)")
    if vote not in _AGREES[series]:
        return done("unresolved", reason + f" (series says {series}, exponents disagree)")
    label = vote if series == "chaotic" else series
    return done(label, reason, period if label == "periodic" else None)


def _exponents(lyapunov: Any, stderr: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Validate descending exponents and their standard errors (same length, SE ≥ 0)."""
    lam = None if lyapunov is None else np.asarray(lyapunov, dtype=np.float64).ravel()
    if stderr is None:
        return lam, None
    se = np.asarray(stderr, dtype=np.float64).ravel()
    if lam is None or se.shape != lam.shape:
        raise AnalysisError(f"stderr: shape {se.shape} must match the exponents' shape "
                            f"{None if lam is None else lam.shape}")
    if np.any(np.isnan(se)) or np.any(se < 0):
        raise AnalysisError("stderr: standard errors must be non-negative numbers")
    return lam, se


def _per_point(values: Any, n: int, name: str) -> np.ndarray | list[None]:
    if values is None:
        return [None] * n
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != n:
        raise AnalysisError(f"{name}: shape {arr.shape}; expected (points, k) with {n} points")
    return arr


def classify(
    data: Any,
    lyapunov: Any = None,
    stderr: Any = None,
    *,
    feature: int = 0,
    section_feature: int = 1,
    transient: int = 0,
    thresholds: Thresholds = Thresholds(),
) -> Classification:
    """Classify the attractor of one trajectory (see the module docstring for the rules).

    Parameters
    ----------
    data : array_like or Trajectory-like
        A series of shape (time,) or (time, features), or an object with ``.mo_se`` (2-D) and
        ``.lyapunov`` / ``.lyapunov_stderr`` (either may be None) such as the model's Trajectory.
    lyapunov : array_like, optional
        Exponents in descending order (overrides ``data.lyapunov``).
    stderr : array_like, optional
        Their standard errors (overrides ``data.lyapunov_stderr``); without them the exponents are taken at
        face value with the ``lyap_zero`` margin only.
    feature : int
        Feature used by the 0–1 test, the spectrum and the distinct count (the paper: ``mo_se`` feature 0).
        Divergence, amplitude and period use all features.
    section_feature : int
        Filter feature of the section whose point count is reported (ignored for 1-D series).
    transient : int
        Leading samples to drop.
    thresholds : Thresholds
        Decision thresholds.

    Returns
    -------
    Classification

    Raises
    ------
    AnalysisError
        Empty or too short series (fewer than ``thresholds.min_length`` after the transient), bad feature
        index, or negative/NaN standard errors. NaN or huge values in the series give ``divergent``.
    """
    if hasattr(data, "mo_se"):
        lyapunov = getattr(data, "lyapunov", None) if lyapunov is None else lyapunov
        stderr = getattr(data, "lyapunov_stderr", None) if stderr is None else stderr
        data = data.mo_se
        if data is None:
            raise AnalysisError("data.mo_se is None: the trajectory did not record mo_se")
    if int(transient) < 0:
        raise AnalysisError(f"transient: {transient!r}; must be non-negative")
    y = as_series(data, name="series", ndim=(1, 2), finite=False)
    y = y.reshape(y.shape[0], -1)[int(transient) :]
    if y.shape[0] < thresholds.min_length:
        raise AnalysisError(
            f"series: {y.shape[0]} samples after the transient, at least {thresholds.min_length} needed"
        )
    for name, idx in (("feature", feature), ("section_feature", section_feature)):
        if y.shape[1] > 1 and not -y.shape[1] <= idx < y.shape[1]:
            raise AnalysisError(f"{name}: {idx}; series has {y.shape[1]} features")
    col = feature if y.shape[1] > 1 else 0
    lam, se = _exponents(lyapunov, stderr)
    return decide(measure(y, lam, se, col, section_feature, thresholds), thresholds)


def classify_many(series: Any, lyapunov: Any = None, stderr: Any = None, **options: Any) -> list[Classification]:
    """Classify many trajectories, e.g. every point of a sweep.

    Parameters
    ----------
    series : array_like, shape (points, time) or (points, time, features)
        One tail per point.
    lyapunov, stderr : array_like, shape (points, k), optional
        Descending exponents and standard errors per point.
    **options
        Keyword arguments of :func:`classify` (``feature``, ``section_feature``, ``transient``,
        ``thresholds``), the same for every point.

    Returns
    -------
    list of Classification, one per point.
    """
    arr = as_series(series, name="series", ndim=(2, 3), finite=False)
    lam = _per_point(lyapunov, arr.shape[0], "lyapunov")
    err = _per_point(stderr, arr.shape[0], "stderr")
    return [classify(tail, lam_i, err_i, **options) for tail, lam_i, err_i in zip(arr, lam, err)]
