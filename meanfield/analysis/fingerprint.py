"""Cheap per-start fingerprints of many recorded tails at once: period, scale, point set and measure summary.

An ensemble census (docs/attractors.md §1) needs, for thousands of trajectories, just enough to tell attractors
apart — not the full classification evidence of one series (docs/classification.md). Every quantity here is a
vectorised numpy operation over the whole ensemble ``(starts, time, features)``:

* **period**: the period the classifier sees (:func:`meanfield.analysis.period.find_cycle` on the tail's decision
  window, with the :class:`~meanfield.analysis.Thresholds` of docs/classification.md §2: a residual at the
  rounding floor relative to the attractor's own extent, or decaying geometrically, a converging divisor
  preferred), up to ``max_period``. 0: no period (an aperiodic orbit, or a cycle longer than that or not yet
  seen). One cycle criterion for the census and the classifier (docs/attractors.md §2).
* **scale**: the attractor's size, ``max_f (max_t x − min_t x)`` (its extent), or ``max |x|`` for a fixed point
  (extent below ``FIXED_POINT_EXTENT · max |x|``: rounding flicker), so every tolerance is relative to the
  attractor itself.
* **quantiles**: the empirical quantile function of each feature at ``n_quantiles`` mid-point levels, i.e. the
  sorted samples of the invariant measure's marginals. The mean absolute difference of two such summaries is
  the Wasserstein-1 distance between the two empirical marginals (exact for equal sample counts, a midpoint
  rule otherwise); it is the phase-free distance between orbits of any kind (docs/attractors.md §2).
* **stationarity**: the same distance between the tail's two halves — how far a sample of this length is from
  itself. An orbit that has not settled (a long transient, intermittency, a drift) has halves that disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from meanfield.analysis.evidence import Thresholds
from meanfield.analysis.period import ensemble_periods
from meanfield.errors import AnalysisError
from meanfield.short_repr import short_repr

DEFAULT_QUANTILES = 64
"""Quantile levels per feature in a measure summary (a W1 midpoint rule with error ≤ range / (2·64))."""

FIXED_POINT_EXTENT = 1e-6
"""An extent below this fraction of the magnitude is a fixed point's rounding flicker, not a size."""


@short_repr
@dataclass(frozen=True)
class Fingerprints:
    """Fingerprints of n tails (see the module docstring).

    Attributes
    ----------
    period : int, shape (n,)
        The smallest settled lag (0: none up to ``max_period``; -1: the tail is not finite).
    scale : float, shape (n,)
        The attractor's extent (or magnitude for a fixed point); NaN when not finite.
    quantiles : float, shape (n, Q, F)
        Per-feature quantile functions of the tail (NaN when not finite).
    stationarity : float, shape (n,)
        W1 distance between the tail's halves, relative to ``scale``.
    tails : float, shape (n, T, F)
        The tails themselves (the cycles' points are read from their last period).
    """

    period: np.ndarray
    scale: np.ndarray
    quantiles: np.ndarray
    stationarity: np.ndarray
    tails: np.ndarray

    def take(self, rows) -> Fingerprints:
        """The fingerprints of the tails ``rows`` (an index array), in that order."""
        return Fingerprints(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})

    def cycle_points(self, i: int) -> np.ndarray:
        """The (p, F) points of start ``i``'s cycle (its last p samples; the order is a phase, irrelevant)."""
        p = int(self.period[i])
        if p <= 0:
            raise AnalysisError(f"start {i} has no cycle (period code {p})")
        return self.tails[i, -p:]


def as_ensemble(tails) -> np.ndarray:
    """Tails as float64 (starts, time, features); a (starts, time) array is one feature."""
    tails = np.asarray(tails, dtype=np.float64)
    if tails.ndim == 2:
        tails = tails[:, :, None]
    if tails.ndim != 3 or tails.shape[0] < 1 or tails.shape[1] < 4 or tails.shape[2] < 1:
        raise AnalysisError(f"tails: shape {tails.shape} is not allowed: must be (starts, time >= 4, features)")
    return tails


def quantile_summary(samples: np.ndarray, n_quantiles: int = DEFAULT_QUANTILES) -> np.ndarray:
    """(…, Q, F) quantile functions at levels (k + 1/2)/Q of samples (…, T, F) along the time axis: the sorted
    samples interpolated linearly at position level·(T − 1) (numpy's default "linear" quantile), from one sort."""
    return _sorted_quantiles(np.sort(samples, axis=-2), n_quantiles)


def _sorted_quantiles(ordered: np.ndarray, n_quantiles: int) -> np.ndarray:
    """:func:`quantile_summary` of samples already sorted along the time axis."""
    position = (np.arange(n_quantiles) + 0.5) / n_quantiles * (ordered.shape[-2] - 1)
    below = np.floor(position).astype(np.int64)
    above = np.minimum(below + 1, ordered.shape[-2] - 1)
    weight = (position - below)[:, None]
    return ordered[..., below, :] * (1.0 - weight) + ordered[..., above, :] * weight


def measure_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Largest per-feature Wasserstein-1 distance between quantile summaries (…, Q, F) (module docstring)."""
    return np.abs(a - b).mean(axis=-2).max(axis=-1)


def cycle_periods(tails: np.ndarray, max_period: int, thresholds: Thresholds = Thresholds()) -> np.ndarray:
    """The period (0: none) that :func:`~meanfield.analysis.period.find_cycle` finds on the decision window
    (``thresholds.window``) of each finite tail of ``tails`` (starts, time, features), as the classifier's
    evidence does (:func:`meanfield.analysis.evidence.measure`), with lags up to ``max_period``."""
    th = thresholds
    window = th.window(tails.shape[1])
    return ensemble_periods(np.ascontiguousarray(tails, dtype=np.float64), window, th.period_rtol,
                            th.converged_rtol, th.converge_decades, th.converge_r2, min(window // 2, int(max_period)))


def fingerprint(tails, *, max_period: int = 256, thresholds: Thresholds = Thresholds(),
                n_quantiles: int = DEFAULT_QUANTILES) -> Fingerprints:
    """Fingerprints of an ensemble of recorded tails (starts, time, features); see the module docstring.
    ``thresholds`` are the classifier's (their cycle criterion and decision window)."""
    tails = as_ensemble(tails)
    if not 1 <= max_period:
        raise AnalysisError(f"max_period = {max_period} is not allowed: must be >= 1")
    finite = np.isfinite(tails).all(axis=(1, 2))
    safe = np.where(finite[:, None, None], tails, 0.0)
    ordered = np.sort(safe, axis=1)                      # the quantiles' sort, whose ends are the extremes
    lowest, highest = ordered[:, 0], ordered[:, -1]
    magnitude = np.maximum(np.abs(lowest), np.abs(highest)).max(axis=1)
    extent = (highest - lowest).max(axis=1)
    scale = np.where(extent > FIXED_POINT_EXTENT * magnitude, extent, magnitude)
    scale = np.where(scale > 0, scale, 1.0)                  # the zero fixed point: absolute tolerances
    period = cycle_periods(safe, max_period, thresholds)
    half = tails.shape[1] // 2
    quantiles = _sorted_quantiles(ordered, n_quantiles)
    halves = measure_distance(quantile_summary(safe[:, :half], n_quantiles),
                              quantile_summary(safe[:, -half:], n_quantiles))
    nan = np.where(finite, 1.0, np.nan)
    return Fingerprints(period=np.where(finite, period, -1), scale=scale * nan,
                        quantiles=quantiles * nan[:, None, None], stationarity=halves / scale * nan,
                        tails=tails)
