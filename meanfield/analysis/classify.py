"""Automatic attractor classification from a series and, optionally, Lyapunov exponents.

The paper tells attractors apart by eye, by a distinct-value count and by the sign of the leading exponents
with a fixed 1e-4 band (docs/model.md). Here every class is identified *positively* on one trailing window
of the series (:func:`meanfield.analysis.evidence.measure`), and the exponents veto only when they are
significant (docs/classification.md gives the rules, their order and the tolerances):

1. **divergent** — NaN/inf or ``|x| > bound`` anywhere, or a NaN/+inf exponent; checked first.
2. **fixed_point / periodic(p)** — the smallest lag p whose residual sits at the rounding floor (relative to
   the values' magnitude) or decays geometrically, repeated at least ``min_repeats`` times in the window; a
   period that divides the forcing period q of a periodically forced map is a fixed point of its stroboscopic
   map (``fixed_point``). A period seen fewer times is ``unresolved`` (run longer).
3. **quasi_periodic** — no period, weighted Birkhoff averages that converge super-polynomially (a regular
   orbit), at most ``max_torus_dim`` torus frequencies explaining the spectral lines, and section points on a
   closed curve; the frequencies are reported.
4. **chaotic** — irregular (Birkhoff averages drift like 1/√N) and the 0–1 test's K above ``k_chaotic``, on
   the series or, for band chaos, on the series sub-sampled at the band count.
5. **Exponents** (descending, with block standard errors): an exponent is significantly positive (negative)
   when it exceeds ``z`` standard errors (``lyap_zero`` without them). A regular orbit's finite-time exponent
   and its block error both shrink like 1/n, so a quasi-periodic λ1 stays within them at every run length;
   a chaotic one grows out of them like √n. A period stands unless λ1 > 0 significantly; a torus stands when
   λ1 is consistent with 0; chaos needs λ1 > 0 significantly (``hyperchaotic`` when λ2 is too); when the
   series gives no vote, a significantly positive λ1 says chaotic.

Anything else is ``unresolved`` with the reason, never a guess; finite or divergent input never raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from meanfield.analysis._input import as_series
from meanfield.analysis.evidence import EVIDENCE, Thresholds, measure
from meanfield.analysis.labels import CYCLES, LABELS
from meanfield.errors import AnalysisError
from meanfield.short_repr import short_repr


@short_repr
@dataclass(frozen=True)
class Classification:
    """Result of :func:`classify`.

    Attributes
    ----------
    label : str
        One of :data:`~meanfield.analysis.labels.LABELS`.
    period : int or None
        The period in samples of the given series for ``periodic`` and ``fixed_point`` (1, or a divisor of
        the forcing period), else None.
    reason : str
        How the label was reached (which criteria agreed or disagreed).
    evidence : Mapping
        Read-only, keys :data:`EVIDENCE` (None where not measured): exponents and standard errors,
        ``max_abs``, ``amplitude`` (largest peak-to-peak of the window), ``window`` (its length),
        ``transient_end`` (first sample on the attractor; None while still converging), ``period``,
        ``period_repeats``, ``period_residual`` (relative), ``period_decay`` (decades), ``birkhoff_drift``,
        ``torus_dim`` and ``frequency1..3`` (cycles per sample, folded to [0, 1/(2q)]), ``curve_spread``,
        ``chaos01_k``, ``bands``, ``spectral_entropy``, ``distinct_count`` and ``section_points`` (the
        reference's heuristics) and ``forcing_period``.
    """

    label: str
    period: int | None
    reason: str
    evidence: Mapping[str, Any]

    @property
    def frequencies(self) -> tuple[float, ...]:
        """Torus frequencies (rotation numbers) of a quasi-periodic orbit, else ()."""
        if self.label != "quasi_periodic":
            return ()
        return tuple(self.evidence[f"frequency{i + 1}"] for i in range(int(self.evidence["torus_dim"])))


def _series_vote(get, th: Thresholds) -> tuple[str | None, int | None, str, str]:
    """(label or None, period, text, what the exponents may decide: "chaos", "chaos or torus" or "")."""
    q = int(get("forcing_period") or 1)
    period = get("period")
    if period is not None:
        period, repeats = int(period), get("period_repeats")
        how = "converging" if (get("period_decay") or 0) > 0 else "at the rounding floor"
        if repeats < th.min_repeats:
            return None, None, f"period {period} seen only {repeats:.1f} times (run longer)", ""
        label = "fixed_point" if q % period == 0 else "periodic"
        return label, period, f"period {period} ({how}, {repeats:.0f} repeats)", ""
    drift = get("birkhoff_drift")
    if drift is None:
        return None, None, "no series evidence", ""
    regularity = th.regularity(drift, int(get("window")))
    text = f"{regularity} (Birkhoff drift {drift:.1e})"
    torus = None
    if regularity != "irregular":
        dim, spread, line_period = get("torus_dim"), get("curve_spread"), get("line_period")
        near, near_spread, near_decay = get("near_period"), get("near_spread"), get("near_decay")
        # concentrated near p points, and approaching them (or leaving them) or too still to show a rotation
        # (a drift of π W |ρ − m/p| of the extent, |ρ − m/p| within the lines' rational_tol): a slow cycle or a
        # laminar phase, not a torus, whatever the exponents say (docs/classification.md §4)
        slow = near is not None and near_spread <= th.near_spread and near_decay is not None and \
            (abs(near_decay) >= th.near_decay or near_spread <= np.pi * get("window") * th.rational_tol)
        if line_period is not None:
            text += f", lines of a period-{int(line_period)} cycle not at its floor"
        elif slow:
            p = int(near)
            how = (f"slow approach to a period-{p} cycle (or a laminar phase at its ghost)"
                   if near_decay >= th.near_decay else
                   f"leaving a period-{p} cycle's ghost (the end of a laminar phase)"
                   if near_decay <= -th.near_decay else f"held near a period-{p} cycle, no rotation resolved")
            return None, None, text + (
                f", {how}: sub-series within {near_spread:.1e} of the extent, lag-{p} residual "
                f"{get('near_residual'):.1e} of the extent, motion slowing by {near_decay:+.2f} decades over the "
                "window (run longer)"), ""
        elif dim is not None and 1 <= dim <= th.max_torus_dim and spread is not None and spread <= th.curve_tol:
            torus = "quasi_periodic"
            text += ", torus frequencies " + ", ".join(f"{get(f'frequency{i + 1}'):.6g}" for i in range(int(dim)))
        else:
            text += f", no torus (dimension {dim}, curve spread {spread})"
    if regularity == "regular":
        return torus, None, text, ""
    k, bands = get("chaos01_k"), get("bands")
    text += f", 0-1 K = {'-' if k is None else f'{k:.2f}'}"
    if bands is not None and bands > 1:
        text += f", {int(bands)} bands"
    if k is not None and k > th.k_chaotic:
        if get("drive_features"):
            return None, None, text + (f", but {int(get('drive_features'))} feature(s) are a quasi-periodic drive: "
                                       "strange nonchaotic or chaotic, the 0-1 test fires on both (give exponents)"), \
                "chaos"
        return "chaotic", None, text, ""
    return None, None, text, "chaos" if torus is None else "chaos or torus"


def _significance(value, stderr, th: Thresholds) -> tuple[int, str]:
    """Sign of an exponent that its error resolves: +1, −1 or 0 (consistent with zero)."""
    band = th.lyap_zero if stderr is None else max(th.z * stderr, th.lyap_rounding)
    sign = 1 if value > band else -1 if value < -band else 0
    return sign, f"{value:.3g} ± {'?' if stderr is None else f'{stderr:.2g}'}"


def decide(evidence: Mapping[str, Any], th: Thresholds = Thresholds()) -> Classification:
    """The label from measured evidence (rules of the module docstring; docs/classification.md §6)."""
    ev = dict(evidence)

    def get(key):
        value = ev.get(key)
        return None if value is None or (isinstance(value, float) and np.isnan(value)) else value

    def done(label: str, reason: str, period: int | None = None) -> Classification:
        return Classification(label, period, reason, MappingProxyType(ev))

    max_abs = get("max_abs")
    if max_abs is None or not max_abs <= th.bound:
        return done("divergent", f"series has NaN/inf or |x| > {th.bound:g}")
    lam1 = get("lambda1")
    if lam1 is not None and (np.isinf(lam1) and lam1 > 0 or np.isinf(get("lambda2") or 0.0) and get("lambda2") > 0):
        return done("divergent", "Lyapunov exponents are NaN or +inf")
    series, period, text, undecided = _series_vote(get, th)
    if lam1 is None:
        return done(series or "unresolved", text, period)
    sign1, text1 = _significance(lam1, get("lambda1_stderr"), th)
    reason = f"{text}; λ1 = {text1}"
    hyper = get("lambda2") is not None and _significance(get("lambda2"), get("lambda2_stderr"), th)[0] > 0
    chaos = "hyperchaotic" if hyper else "chaotic"
    if series in CYCLES:
        if sign1 > 0:
            return done("unresolved", reason + " (a cycle, but λ1 is significantly positive)")
        return done(series, reason, period)
    if series == "quasi_periodic":
        if sign1 != 0:
            return done("unresolved", reason + " (a torus, but λ1 is significantly non-zero)")
        return done(series, reason)
    if series == "chaotic":
        if sign1 <= 0:
            return done("unresolved", reason + " (irregular, but λ1 is not significantly positive)")
        return done(chaos, reason)
    if undecided and sign1 > 0:
        return done(chaos, reason + " (the exponents decide)")
    if undecided == "chaos or torus" and sign1 == 0:
        return done("quasi_periodic", reason + " (the exponents decide)")
    return done("unresolved", reason)


def _exponents(lyapunov: Any, stderr: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Validate descending exponents and their standard errors (same length, SE ≥ 0 or NaN = not estimated)."""
    lam = None if lyapunov is None else np.asarray(lyapunov, dtype=np.float64).ravel()
    if stderr is None:
        return lam, None
    se = np.asarray(stderr, dtype=np.float64).ravel()
    if lam is None or se.shape != lam.shape:
        raise AnalysisError(f"stderr: shape {se.shape} must match the exponents' shape "
                            f"{None if lam is None else lam.shape}")
    if np.any(se < 0):
        raise AnalysisError("stderr: standard errors must be non-negative (NaN: not estimated)")
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
    forcing_period: int | None = None,
    thresholds: Thresholds = Thresholds(),
) -> Classification:
    """Classify the attractor of one trajectory (see the module docstring for the rules).

    Parameters
    ----------
    data : array_like, Trajectory or BatchResult (or alike)
        A series of shape (time,) or (time, features); or an object with ``.mo_se`` or ``.series`` (2-D; a
        :class:`~meanfield.analysis.maps.MapTrajectory`) and
        ``.lyapunov`` / ``.lyapunov_stderr`` (either may be None), and optionally ``.forcing_period``, such as
        the model's Trajectory; or a batch with a ``.point(i)`` method returning one (the model's BatchResult),
        with the point index ``i`` as the second argument: ``classify(batch, i)``.
    lyapunov : array_like, optional
        Exponents in descending order (overrides ``data.lyapunov``); for a batch, the point index.
    stderr : array_like, optional
        Their standard errors (overrides ``data.lyapunov_stderr``; NaN = not estimated); without them the
        exponents are compared with the ``lyap_zero`` band.
    feature : int
        Feature used by the 0–1 test, the spectrum and the distinct count (the paper: ``mo_se`` feature 0).
        Divergence, amplitude, period and Birkhoff averages use all features.
    section_feature : int
        Filter feature of the section whose point count is reported (ignored for 1-D series).
    transient : int
        Leading samples to drop.
    forcing_period : int, optional
        Period q (in samples of the series) of a periodic forcing that is part of the state, such as the
        model's positional encoding: a cycle whose period divides q is a ``fixed_point`` (of the stroboscopic
        map), and torus frequencies are counted besides 1/q. Default: ``data.forcing_period`` where ``data``
        has one (a Trajectory: its model's, as a sweep passes it, docs/classification.md §2), else 1 (an
        autonomous map).
    thresholds : Thresholds
        Measurement and decision thresholds.

    Returns
    -------
    Classification

    Raises
    ------
    AnalysisError
        Empty or too short series (fewer than ``thresholds.min_length`` after the transient), bad feature
        index, forcing period or exponent shapes, or negative standard errors. NaN or huge values in the
        series give ``divergent``.
    """
    if callable(getattr(data, "point", None)):          # classify(batch, i)
        if isinstance(lyapunov, bool) or not isinstance(lyapunov, int | np.integer):
            raise AnalysisError(f"classify(batch, i): i = {lyapunov!r}; must be the index of a point")
        data, lyapunov = data.point(lyapunov), None
    if hasattr(data, "mo_se") or hasattr(data, "series"):
        if forcing_period is None:
            forcing_period = getattr(data, "forcing_period", None)
        lyapunov = getattr(data, "lyapunov", None) if lyapunov is None else lyapunov
        stderr = getattr(data, "lyapunov_stderr", None) if stderr is None else stderr
        name = "mo_se" if hasattr(data, "mo_se") else "series"
        data = getattr(data, name)
        if data is None:
            raise AnalysisError(f"data.{name} is None: the trajectory did not record it")
    if int(transient) < 0:
        raise AnalysisError(f"transient: {transient!r}; must be non-negative")
    forcing_period = 1 if forcing_period is None else forcing_period
    if int(forcing_period) < 1:
        raise AnalysisError(f"forcing_period: {forcing_period!r}; must be a positive integer")
    y = as_series(data, name="series", ndim=(1, 2), finite=False)
    y = y.reshape(y.shape[0], -1)[int(transient):]
    if y.shape[0] < thresholds.min_length:
        raise AnalysisError(f"series: {y.shape[0]} samples after the transient, "
                            f"at least {thresholds.min_length} needed")
    for name, idx in (("feature", feature), ("section_feature", section_feature)):
        if y.shape[1] > 1 and not -y.shape[1] <= idx < y.shape[1]:
            raise AnalysisError(f"{name}: {idx}; series has {y.shape[1]} features")
    col = feature if y.shape[1] > 1 else 0
    lam, se = _exponents(lyapunov, stderr)
    section = section_feature % y.shape[1]               # as a sweep's workers measure it
    return decide(measure(y, lam, se, col, section, thresholds, int(forcing_period)), thresholds)


def classify_many(series: Any, lyapunov: Any = None, stderr: Any = None, **options: Any) -> list[Classification]:
    """Classify many trajectories, e.g. every point of a sweep.

    Parameters
    ----------
    series : array_like, shape (points, time) or (points, time, features)
        One series per point.
    lyapunov, stderr : array_like, shape (points, k), optional
        Descending exponents and standard errors per point.
    **options
        Keyword arguments of :func:`classify`, the same for every point.

    Returns
    -------
    list of Classification
        One per point.
    """
    arr = as_series(series, name="series", ndim=(2, 3), finite=False)
    lam = _per_point(lyapunov, arr.shape[0], "lyapunov")
    err = _per_point(stderr, arr.shape[0], "stderr")
    return [classify(tail, lam_i, err_i, **options) for tail, lam_i, err_i in zip(arr, lam, err)]


__all__ = ["EVIDENCE", "LABELS", "Classification", "Thresholds", "classify", "classify_many", "decide", "measure"]
