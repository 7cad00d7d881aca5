"""Periods that are periods: exact recurrence at the rounding floor, or a residual that decays geometrically.

A stable cycle of a map computed in float64 repeats to within a few rounding errors of its values' magnitude
once its transient has decayed, and the residual ``e_p(t) = max_f |x_{t+p} − x_t|`` at its period stays at that
floor at every multiple k·p of the period. A quasi-periodic orbit only comes back *near* itself: its residual at
a near-return lag p is ≈ 2π |pρ − m| times its amplitude (ρ the rotation number), far above the floor for
every lag a finite run can test, and it grows with k at lag k·p. A cycle still being approached has a residual
that decays geometrically (like |μ|^t, μ its leading multiplier). :func:`find_cycle` accepts exactly these two
behaviours; the decision rules and their tolerances are explained in docs/classification.md §2.

A cycle whose multiplier is close to 1 (next to a saddle-node bifurcation) is approached too slowly for either:
through the bottleneck its distance falls like 1/t, not geometrically. :mod:`.slow_cycles` finds the period p
near which such an orbit is concentrated and whether its motion slows down, which tells it from a torus
(docs/classification.md §4, slow cycles).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from meanfield.analysis._input import as_series
from meanfield.compiled_cache import cached_jit
from meanfield.errors import AnalysisError
from meanfield.short_repr import short_repr

PREFILTER_SAMPLES = 16
"""Trailing samples that must recur at a lag before the lag is examined over the whole series."""


@short_repr
@dataclass(frozen=True)
class Cycle:
    """What :func:`find_cycle` found.

    Attributes
    ----------
    period : int or None
        The smallest lag whose residual is at the floor over a trailing segment, or decays geometrically
        through the whole series; None when no lag up to ``max_period`` does.
    repeats : float
        Length of the segment over which the cycle holds (the settled segment, or the whole series for a
        converging cycle) in periods. A period counts only with ``repeats ≥ min_repeats``.
    residual : float
        Largest lag-``period`` residual over that segment (for a converging cycle: at the end of the series),
        relative to the series' magnitude ``max |x|``.
    decay : float
        Decades by which the residual's envelope fell through the series (0 when it sat at the floor).
    settled_at : int or None
        First sample from which the residual stays at the floor (None: still converging).
    """

    period: int | None
    repeats: float
    residual: float
    decay: float
    settled_at: int | None


NO_CYCLE = Cycle(None, 0.0, float("nan"), 0.0, None)


@cached_jit(nogil=True)
def column_ranges(window: np.ndarray) -> tuple:
    """Per-feature minima and maxima of ``window`` (time, features) in one pass (numpy's reductions along
    the time axis of a C-ordered array take several times longer)."""
    lo = window[0].copy()
    hi = window[0].copy()
    for t in range(1, window.shape[0]):
        for f in range(window.shape[1]):
            v = window[t, f]
            if v < lo[f]:
                lo[f] = v
            if v > hi[f]:
                hi[f] = v
    return lo, hi


def lag_residual(y: np.ndarray, p: int) -> np.ndarray:
    """``max_f |y[t + p, f] − y[t, f]|`` for ``t = 0 … n − p − 1`` (y of shape (time, features), finite), in
    one compiled pass (numpy's maximum over a short last axis is several times slower)."""
    return _lag_residual(np.ascontiguousarray(y, dtype=np.float64), int(p))


@cached_jit(nogil=True)
def _lag_residual(y: np.ndarray, p: int) -> np.ndarray:
    out = np.empty(max(y.shape[0] - p, 0))
    for t in range(out.size):
        largest = abs(y[t + p, 0] - y[t, 0])
        for f in range(1, y.shape[1]):
            largest = max(largest, abs(y[t + p, f] - y[t, f]))
        out[t] = largest
    return out


@cached_jit(nogil=True)
def _geometric_decay(e: np.ndarray, floor: float, end_tol: float, decades: float, r2_min: float) -> float:
    """Decades of decay when the residual's envelope (suffix maximum) falls geometrically to ``end_tol`` or
    below, else 0. Geometric = log-envelope linear in time (least squares) with R² ≥ ``r2_min``: an approach
    to a cycle (|μ|^t) is, while an intermittent orbit's envelope falls in steps (one per burst) and is not."""
    n = e.size
    if n < 2:
        return 0.0
    env = np.empty(n)
    top = e[n - 1]
    for t in range(n - 1, -1, -1):
        top = max(top, e[t])
        env[t] = np.log10(max(top, floor))
    drop = env[0] - env[n - 1]
    if env[n - 1] > np.log10(end_tol) or drop < decades:
        return 0.0
    t_mean = 0.5 * (n - 1)
    env_mean = env.mean()
    st = 0.0
    tt = 0.0
    for t in range(n):
        st += (t - t_mean) * (env[t] - env_mean)
        tt += (t - t_mean) ** 2
    slope = st / tt
    resid = 0.0
    total = 0.0
    for t in range(n):
        resid += (env[t] - env_mean - slope * (t - t_mean)) ** 2
        total += (env[t] - env_mean) ** 2
    return drop if 1.0 - resid / total >= r2_min else 0.0


@cached_jit(nogil=True)
def _residual_summary(y: np.ndarray, p: int, floor: float) -> tuple:
    """(first sample from which the lag-p residual stays at or below ``floor``, its largest value, its last
    value) in one pass without storing it: most lags of a slowly drifting series fail on these alone."""
    settled, top, last = 0, 0.0, 0.0
    for t in range(y.shape[0] - p):
        largest = abs(y[t + p, 0] - y[t, 0])
        for f in range(1, y.shape[1]):
            largest = max(largest, abs(y[t + p, f] - y[t, f]))
        if largest > floor:
            settled = t + 1
        top = max(top, largest)
        last = largest
    return settled, top, last


#: What :func:`_cycle_at` returns for a lag that is not a period: (period, repeats, residual, decay, settled).
_REJECTED = (0, 0.0, 0.0, 0.0, -1)


@cached_jit(nogil=True)
def _cycle_at(y: np.ndarray, p: int, floor: float, end_tol: float, decades: float, r2_min: float,
              step_max: float) -> tuple:
    """The cycle of lag p, as (p, repeats, residual, decay, settled sample or −1 while converging), if its
    residual is at the floor from some sample on (without drift at multiples of p) or converges geometrically,
    else period 0 (rules of :func:`find_cycle`). ``step_max`` (the largest lag-1 residual) bounds every lag-p
    residual by ``p · step_max``: a residual above the floor over the last p samples, which only the converging
    rule can accept, is rejected without a pass over the series when that bound leaves no room for the decay
    it needs."""
    n = y.shape[0]
    recent = _lag_residual(y[n - 2 * p:], p)          # e_p over its last p samples (n ≥ 2p)
    if recent.max() > floor:                          # not at the floor over the last 2p samples
        last = max(recent[-1], floor)
        if recent[-1] <= floor or last > end_tol or p * step_max * (1 + 1e-12) < 10.0 ** decades * last:
            return _REJECTED
    settled, top, last = _residual_summary(y, p, floor)
    if n - settled >= 2 * p:  # at the floor over two full periods at least (shorter: a coincidence)
        k = max(1, (n - settled) // (2 * p))
        if k * p < n - settled:
            multiple = _lag_residual(y[settled:], k * p)
            # a decade above the floor at k·p: a drift (near-rational rotation) unless it decays (a cycle with
            # a multiplier near 1 still approached: e_kp ≈ |μ^kp − 1| |μ|^t grows with k but decays in t;
            # within a decade of the floor that decay cannot be seen) or has come down to within a decade of
            # the floor over the second half of the segment (a geometric approach that reached the floor early:
            # its log-envelope is flat from there on and fails the linearity test)
            if multiple.max() > 10 * floor and multiple[multiple.size // 2:].max() > 10 * floor and \
                    _geometric_decay(multiple, floor, end_tol, decades, r2_min) == 0.0:
                return _REJECTED
        e = _lag_residual(y, p)
        # reached the floor by a geometric approach: the whole series shows the cycle
        decay = _geometric_decay(e[:settled], floor, end_tol, decades, r2_min) if settled > p else 0.0
        return p, (n if decay > 0 else n - settled) / p, e[settled:].max(), decay, settled
    if settled < n - p:
        return _REJECTED
    # converging: the envelope must fall by `decades` to end_tol (checked on the summary before the fit)
    if max(last, floor) > end_tol or np.log10(max(top, floor) / max(last, floor)) < decades:
        return _REJECTED
    e = _lag_residual(y, p)
    decay = _geometric_decay(e, floor, end_tol, decades, r2_min)
    return (p, n / p, e[-1], decay, -1) if decay > 0 else _REJECTED


#: A cycle repeats to within this fraction of its own extent: far below the closest return of a quasi-periodic
#: orbit within 1e5 samples (≈ 3/N of its extent for a golden rotation), docs/classification.md §2.
EXTENT_RTOL = 1e-6
#: Rounding units of the magnitude below which no floor goes: a cycle's residual is rounding (eps·M per
#: operation) amplified by the map's conditioning and by 1/(1 − |μ|) for a multiplier near the unit circle
#: (the logistic map at r = 2.999 flickers by ~1e3 units on its fixed point).
ROUNDING_ULPS = 1e4
_EPS = float(np.finfo(np.float64).eps)


@cached_jit(nogil=True)
def rounding_floor(magnitude: float, extent: float, rtol: float) -> float:
    """The residual at which a cycle counts as repeating (docs/classification.md §2): ``rtol`` of the
    magnitude M = max |x| (float64 rounding amplified by the map), but never more than :data:`EXTENT_RTOL`
    (or ``rtol`` when looser) of the attractor's own extent — a small attractor far from the origin would
    otherwise repeat "within rounding" to a fraction of its size — nor less than :data:`ROUNDING_ULPS`
    rounding units of M. For an attractor of extent s at offset R·s the floor is 1e-10·R·s up to R = 1e4 (as
    for M ≈ s), then 1e-6·s, then 2.2e-12·R·s beyond R ≈ 5e5: a quasi-periodic orbit's closest returns within
    N = 1e4 samples (≳ 3e-4·s) stay above it up to R ≈ 1e8; the weighted Birkhoff averages lose resolution
    earlier."""
    return max(min(rtol * magnitude, max(rtol, EXTENT_RTOL) * extent), ROUNDING_ULPS * _EPS * magnitude)


@cached_jit(nogil=True)
def _recurs_at_end(y: np.ndarray, p: int, samples: int, tol: float) -> bool:
    """Whether each of the last ``samples`` samples recurs within ``tol`` (every feature) at lag p."""
    n = y.shape[0]
    for j in range(1, samples + 1):
        for f in range(y.shape[1]):
            if abs(y[n - j - p, f] - y[n - j, f]) > tol:
                return False
    return True


@cached_jit(nogil=True)
def _find_cycle(y: np.ndarray, rtol: float, converged_rtol: float, decades: float, r2_min: float,
                limit: int) -> tuple:
    """:func:`find_cycle` on a C-ordered (time, features) float64 series with lags up to ``limit`` ≤ n/2, as
    (period or 0, repeats, residual relative to max |x|, decay, settled sample or −1)."""
    n = y.shape[0]
    lo, hi = column_ranges(y)
    magnitude = max(np.max(np.abs(lo)), np.max(np.abs(hi)))
    extent = np.max(hi - lo)
    floor = rounding_floor(magnitude, extent, rtol)
    end_tol = max(converged_rtol * magnitude, floor)
    if extent <= floor:
        return 1, float(n), extent / max(magnitude, 1e-300), 0.0, 0
    samples = min(PREFILTER_SAMPLES, n - limit)
    step_max = -1.0                                   # the largest lag-1 residual, once a lag passes the filter
    for p in range(1, limit + 1):
        if not _recurs_at_end(y, p, samples, end_tol):
            continue
        if step_max < 0:
            step_max = _lag_residual(y, 1).max()
        period, repeats, residual, decay, settled = _cycle_at(y, p, floor, end_tol, decades, r2_min, step_max)
        if period == 0:
            continue
        segment = n // 2 if settled < 0 else settled
        repeating_divisor = False
        for d in range(1, p // 2 + 1):
            if p % d == 0 and _lag_residual(y[segment:], d).max() <= floor:
                repeating_divisor = True
                break
        if repeating_divisor:
            # a multiple of a smaller lag that repeats at the floor over the same samples (p's settled segment,
            # or the second half for a converging p) but was rejected (its residual at a multiple drifts: a
            # cycle still approached algebraically, or a near-rational rotation): the same evidence rejects p,
            # whose own multiple check spans fewer samples or whose residual, (p/d) times larger, is not at the
            # floor
            continue
        # a divisor converging at a comparable rate is the period (half the decades of the accepted lag, or
        # `decades` when that one sat at the floor throughout)
        least = min(decades, decay / 2) if decay > 0 else decades
        for d in range(1, p // 2 + 1):
            if p % d != 0:
                continue
            e = _lag_residual(y, d)
            divisor_decay = _geometric_decay(e, floor, np.inf, least, r2_min)
            if divisor_decay > 0 and _geometric_decay(e[e.size // 2:], floor, np.inf, least / 2, r2_min) > 0:
                period, repeats, residual, decay, settled = d, n / d, e[-1], divisor_decay, -1
                break
        return period, repeats, residual / magnitude, decay, settled
    return 0, 0.0, np.nan, 0.0, -1


@cached_jit(nogil=True)
def ensemble_periods(tails: np.ndarray, window: int, rtol: float, converged_rtol: float, decades: float,
                     r2_min: float, limit: int) -> np.ndarray:
    """The period (0: none) that :func:`find_cycle` finds, with lags up to ``limit`` (≤ window/2), on the last
    ``window`` samples of each C-ordered float64 series of ``tails`` (starts, time, features), without its
    argument checks: the census's per-start search (:func:`meanfield.analysis.fingerprint.cycle_periods`)."""
    out = np.zeros(tails.shape[0], dtype=np.int64)
    for s in range(tails.shape[0]):
        out[s] = _find_cycle(np.ascontiguousarray(tails[s, tails.shape[1] - window:]), rtol, converged_rtol,
                             decades, r2_min, limit)[0]
    return out


def find_cycle(
    x: np.ndarray,
    period_rtol: float = 1e-10,
    converged_rtol: float = 1e-6,
    decades: float = 1.0,
    r2_min: float = 0.95,
    max_period: int | None = None,
) -> Cycle:
    """The period of a (trailing window of a) trajectory, if it has one (docs/classification.md §2).

    With ``M = max |x|`` (the magnitude that sets float64 rounding) and ``floor`` =
    :func:`~meanfield.analysis.period.rounding_floor` (``period_rtol · M``, at most 1e-6 of the attractor's extent), a
    lag ``p`` is accepted, smallest first, when either

    * **at the floor**: ``e_p(t) ≤ floor`` from some sample ``s ≤ n − 2p`` on, and the residual at the multiple ``k·p``
      spanning half the settled segment is within a decade of the floor (throughout, or over the second half of
      the segment) or decays geometrically (no drift: a near-rational rotation's residual grows like k and
      stays, and so does that of a cycle still approached algebraically through a saddle-node bottleneck);
      ``repeats = (n − s) / p``, or ``n / p`` when the residual before ``s`` decayed geometrically (the whole
      series approaches the cycle);
    * **converging**: the envelope of ``e_p`` decays geometrically (log-linear, R² ≥ ``r2_min``) by at least
      ``decades`` decades to ``≤ converged_rtol · M`` at the end; ``repeats = n / p``.

    A p with a proper divisor whose residual is at the floor over p's settled segment (for a converging p: over
    the second half of the series) is rejected: that divisor was tried first and rejected, on the same drift
    over more samples (the slow approach to a 3-cycle otherwise shows "period 48" once the lag-48 residual,
    16 times the lag-3 one, has crossed the floor).

    A proper divisor d of the accepted p whose residual also decays geometrically (to any level, by at least
    half as many decades, and still in the second half of the series) is the period instead: near a period
    doubling (multiplier ≈ −1) the lag-2d residual ≈ (1 − μ²)|δ| reaches the floor long before the lag-d one
    ≈ 2|δ|, and on a spiral into a fixed point (complex multipliers e^{λ ± 2πiω}) the residual at a near-return
    lag p of the rotation, ≈ |e^{2πipω} − 1| |δ|, is far smaller than at lag 1, although the orbit converges
    to the d-cycle.

    Lags are examined only if the last 16 samples recur within ``converged_rtol · M`` (cost O(n) per examined
    lag, and almost no lag of an aperiodic series passes that test; a series slowly settling onto a fixed point
    passes it at every lag, which then fail on a one-pass summary of their residual).

    Parameters
    ----------
    x : array_like, shape (time,) or (time, features)
        Finite series.
    period_rtol : float
        Rounding floor relative to ``max |x|`` (default 1e-10: float64 rounding, 2.2e-16 per operation,
        amplified by the map's conditioning and by 1/(1 − |μ|) for multipliers as close to 1 as 1 − 1e-4).
    converged_rtol : float
        Largest end residual of a converging cycle relative to ``max |x|``.
    decades, r2_min : float
        Least decay and log-linearity of a converging cycle's residual envelope.
    max_period : int, optional
        Largest lag tried; default and upper limit ``n // 2`` (longer periods cannot be seen twice).

    Returns
    -------
    Cycle
        ``residual`` relative to ``M``.
    """
    arr = as_series(x, name="x", min_length=2, ndim=(1, 2))
    y = arr.reshape(arr.shape[0], -1)
    for name, value in (("period_rtol", period_rtol), ("converged_rtol", converged_rtol)):
        if not (np.isfinite(value) and value > 0):
            raise AnalysisError(f"{name}: {value!r}; must be a finite positive number")
    if max_period is not None and int(max_period) < 1:
        raise AnalysisError(f"max_period: {max_period!r}; must be a positive integer")
    n = y.shape[0]
    limit = n // 2 if max_period is None else min(n // 2, int(max_period))
    period, repeats, residual, decay, settled = _find_cycle(np.ascontiguousarray(y, dtype=np.float64),
                                                            float(period_rtol), float(converged_rtol), float(decades),
                                                            float(r2_min), limit)
    if period == 0:
        return NO_CYCLE
    return Cycle(int(period), float(repeats), float(residual), float(decay), None if settled < 0 else int(settled))


def detect_period(x: np.ndarray, period_rtol: float = 1e-10, min_repeats: int = 10,
                  max_period: int | None = None) -> int | None:
    """Smallest period of a series that :func:`~meanfield.analysis.period.find_cycle` accepts and that repeats at least
    ``min_repeats`` times, else None.

    Parameters
    ----------
    x : array_like, shape (time,) or (time, features)
        Finite series, typically the tail after the transient.
    period_rtol : float
        Rounding floor relative to ``max |x|`` (see :func:`find_cycle`).
    min_repeats : int
        Least number of repetitions (docs/classification.md §2: ten, so that a cycle is seen, not guessed).
    max_period : int, optional
        Largest period tried.
    """
    if int(min_repeats) < 1:
        raise AnalysisError(f"min_repeats: {min_repeats!r}; must be a positive integer")
    cycle = find_cycle(x, period_rtol=period_rtol, max_period=max_period)
    return cycle.period if cycle.period is not None and cycle.repeats >= int(min_repeats) else None
