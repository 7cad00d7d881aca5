"""Slow cycles: the period p an orbit is concentrated near, and whether its motion there slows or speeds.

A cycle approached through the bottleneck of a saddle-node (a multiplier near 1) or a laminar phase at its ghost
keeps every lag-p sub-series within a small fraction of the attractor's extent while moving ever slower (or
faster); a torus near a resonance drifts steadily around its curve. :func:`near_cycle` measures both, the
classifier decides with them (docs/classification.md §4, slow cycles).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from meanfield.analysis._input import as_series
from meanfield.analysis.period import PREFILTER_SAMPLES, column_ranges, lag_residual, rounding_floor
from meanfield.compiled_cache import cached_jit
from meanfield.short_repr import short_repr


@short_repr
@dataclass(frozen=True)
class NearCycle:
    """What :func:`near_cycle` found.

    Attributes
    ----------
    period : int or None
        The smallest lag p at which every sub-series ``x_{j}, x_{j+p}, x_{j+2p}, …`` (j = 0 … p − 1) stays
        within ``spread_tol`` of the series' extent: the orbit is concentrated near p points. None when no lag
        up to ``max_period`` is.
    spread : float
        Largest peak-to-peak of those sub-series (over phases and features), relative to the extent.
    decay : float
        Decades by which the sub-series' motion slowed down through the series: the largest displacement
        ``|x_{t+L} − x_t|`` over L ≈ a tenth of the series (a multiple of p) among the starts t in the first
        tenth, over the same among the starts in the last L samples that have one (each at least the rounding
        floor); negative when the motion sped up.
    residual : float
        Largest lag-p residual over the last L + p samples, relative to the extent.
    """

    period: int | None
    spread: float
    decay: float
    residual: float


NO_NEAR_CYCLE = NearCycle(None, float("nan"), float("nan"), float("nan"))


@cached_jit(nogil=True)
def _subseries_spread(y: np.ndarray, p: int) -> float:
    """Largest peak-to-peak, over the phases j < p and the features, of the sub-series y[j::p]."""
    best = 0.0
    for j in range(p):
        for f in range(y.shape[1]):
            lo = y[j, f]
            hi = lo
            for t in range(j + p, y.shape[0], p):
                v = y[t, f]
                lo = min(lo, v)
                hi = max(hi, v)
            best = max(best, hi - lo)
    return best


def near_cycle(x: np.ndarray, spread_tol: float = 1e-2, max_period: int = 1000, rtol: float = 1e-10) -> NearCycle:
    """The period p near which a (trailing window of a) trajectory is concentrated, and whether its motion
    slows down (docs/classification.md §4, slow cycles).

    A cycle approached with a multiplier near 1 (next to a saddle-node bifurcation, or a laminar phase near
    the ghost of one) spends the whole window near its p points: each sub-series ``x_{j+kp}`` moves by a
    small fraction of the attractor's extent, and its motion slows down (its step falls like 1/t² on the
    algebraic approach through the bottleneck, like |μ|^t once close) or, leaving a ghost, speeds up. An orbit
    on a torus is spread over its closed curve: at a near-return lag p of its rotation number ρ each sub-series
    drifts along the curve by ≈ π W |ρ − m/p| of the extent in W samples, at the speed the curve has where it
    is (stationary), so it covers the whole curve unless ρ is within ~1/(πW) of m/p.

    Parameters
    ----------
    x : array_like, shape (time,) or (time, features)
        Finite series (the classification window).
    spread_tol : float
        Largest spread of the sub-series, relative to the extent (largest per-feature peak-to-peak).
    max_period : int
        Largest lag tried (at most a tenth of the series).
    rtol : float
        Rounding floor relative to ``max |x|`` (:func:`rounding_floor`): displacements below it count as the
        floor when the slowing is measured.

    Returns
    -------
    NearCycle
    """
    arr = as_series(x, name="x", min_length=2, ndim=(1, 2))
    y = np.ascontiguousarray(arr.reshape(arr.shape[0], -1), dtype=np.float64)
    n = y.shape[0]
    lo, hi = column_ranges(y)
    extent = float(np.max(hi - lo))
    magnitude = float(max(np.max(np.abs(lo)), np.max(np.abs(hi))))
    floor = rounding_floor(magnitude, extent, rtol)
    limit = min(int(max_period), n // 10)
    if extent <= floor or limit < 1:
        return NO_NEAR_CYCLE
    tol = spread_tol * extent
    lags = np.arange(1, limit + 1)
    # necessary: the last samples and their lag-p predecessors belong to the same sub-series
    for j in range(1, min(PREFILTER_SAMPLES, n - limit) + 1):
        lags = lags[np.max(np.abs(y[n - j - lags] - y[n - j]), axis=1) <= tol]
    for p in lags.tolist():
        spread = _subseries_spread(y, p)
        if spread <= tol:
            # the motion over L samples, not the lag-p step: it stays above the rounding floor even when a
            # cycle's step is below it, and it averages a torus' step over many p along its curve
            span = p * max(1, (n // 10) // p)
            moved = lag_residual(y, span)
            first, last = max(float(moved[:span].max()), floor), max(float(moved[-span:].max()), floor)
            residual = float(lag_residual(y[-span - p:], p).max()) / extent
            return NearCycle(p, spread / extent, float(np.log10(first / last)), residual)
    return NO_NEAR_CYCLE


__all__ = ["NO_NEAR_CYCLE", "NearCycle", "near_cycle"]
