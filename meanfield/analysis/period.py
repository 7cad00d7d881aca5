"""Period detection with a tolerance.

The period of a (tail of a) trajectory is the smallest ``p ≥ 1`` with ``|x_{t+p} − x_t| < tol`` for every
``t`` of the series and every feature. This is the automatic counterpart of reading the period off the
paper's trajectories (e.g. period 96 at β = 2.5, spec §8).
"""

from __future__ import annotations

import numpy as np

from meanfield.analysis._input import as_series
from meanfield.errors import AnalysisError


def detect_period(x: np.ndarray, tol: float = 1e-6, max_period: int | None = None) -> int | None:
    """Smallest period of a series within a tolerance.

    Candidates are the lags ``p`` at which the first sample recurs (``max_f |x_p − x_0| < tol``); each is
    then checked on the whole series (``max_{t,f} |x_{t+p} − x_t| < tol``), smallest first. This costs
    O(n) per candidate instead of O(n · max_period), which matters over sweeps of thousands of points.

    Parameters
    ----------
    x : array_like, shape (time,) or (time, features)
        Finite series, typically the tail after the transient.
    tol : float
        Absolute tolerance (same units as ``x``).
    max_period : int, optional
        Largest period tried; default and upper limit ``n // 2`` so that every lag is checked over at least
        one full period.

    Returns
    -------
    int or None
        The period, or None when no ``p ≤ max_period`` fits.

    Raises
    ------
    AnalysisError
        Fewer than 2 samples, non-finite values, or invalid ``tol`` / ``max_period``.
    """
    arr = as_series(x, name="x", min_length=2, ndim=(1, 2))
    y = arr.reshape(arr.shape[0], -1)
    if not (np.isfinite(tol) and tol > 0):
        raise AnalysisError(f"tol: {tol!r}; must be a finite positive number")
    limit = y.shape[0] // 2
    if max_period is not None:
        if int(max_period) < 1:
            raise AnalysisError(f"max_period: {max_period!r}; must be a positive integer")
        limit = min(limit, int(max_period))
    recur = np.max(np.abs(y[1 : limit + 1] - y[0]), axis=1) < tol
    for p in np.flatnonzero(recur) + 1:
        if np.max(np.abs(y[p:] - y[:-p])) < tol:
            return int(p)
    return None
