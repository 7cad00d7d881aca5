"""Regular or not: convergence of weighted Birkhoff averages (Das, Saiki, Sander & Yorke 2017).

For an orbit on a quasi-periodic torus with Diophantine frequencies and a smooth observable f, the weighted
Birkhoff average

    WB_N(f) = Σ_{t<N} w(t/N) f(x_t) / Σ_{t<N} w(t/N),   w(s) = exp(−1 / (s (1 − s))),

converges to the space average faster than any power of N, because the weight vanishes with all its
derivatives at both ends (Das, Saiki, Sander & Yorke, "Quantitative quasiperiodicity", Nonlinearity 30, 4111
(2017); Das & Yorke, "Super convergence of ergodic averages for quasiperiodic orbits", Nonlinearity 31, 491
(2018)). Periodic orbits converge as fast; for a chaotic orbit the error stays of order √(τ/N) (τ a correlation
time). The difference between the averages over the two halves of a window, relative to the observable's
standard deviation, therefore separates regular from chaotic orbits by many decades (docs/classification.md
§3: below 1e-12 for the benchmark's tori and invariant circles at 5000 samples a half, above 1e-5 for every
chaotic case).
"""

from __future__ import annotations

import numpy as np

from meanfield.analysis._input import as_series
from meanfield.compiled_cache import cached_jit
from meanfield.errors import AnalysisError


def bump_weights(n: int) -> np.ndarray:
    """Weights ``w((t + ½)/n)`` of the C∞ bump ``w(s) = exp(−1/(s(1 − s)))``, normalised to sum 1."""
    if int(n) < 1:
        raise AnalysisError(f"n: {n!r}; must be a positive integer")
    s = (np.arange(int(n), dtype=np.float64) + 0.5) / int(n)
    w = np.exp(-1.0 / (s * (1.0 - s)))
    return w / w.sum()


def weighted_birkhoff_average(x: np.ndarray) -> np.ndarray:
    """Weighted Birkhoff average of each feature of a series (time on axis 0); a scalar for 1-D input."""
    arr = as_series(x, name="x", ndim=(1, 2))
    return bump_weights(arr.shape[0]) @ arr


def birkhoff_drift(x: np.ndarray) -> float:
    """``max_f |WB(first half) − WB(second half)| / std_f`` over the observables ``x_f`` and ``(x_f − x̄_f)²``:
    ≈ 0 (super-convergence) for regular orbits, ≳ 1/√N for chaotic ones, large for a series still drifting or
    shrinking (a transient: a spiral into a fixed point keeps its mean but not its second moment). Observables
    with zero standard deviation are skipped; a constant series gives 0.

    Parameters
    ----------
    x : array_like, shape (time,) or (time, features)
        Finite series, at least 4 samples.
    """
    arr = as_series(x, name="x", min_length=4, ndim=(1, 2))
    y = np.ascontiguousarray(arr.reshape(arr.shape[0], -1))
    y = np.hstack([y, (y - column_means(y)) ** 2])
    half = y.shape[0] // 2
    scale = np.sqrt(column_means((y - column_means(y)) ** 2))
    keep = scale > 0
    if not np.any(keep):
        return 0.0
    diff = weighted_birkhoff_average(y[:half, keep]) - weighted_birkhoff_average(y[half:2 * half, keep])
    return float(np.max(np.abs(diff) / scale[keep]))


def column_means(y: np.ndarray) -> np.ndarray:
    """``y.mean(axis=0)`` of a C-ordered (time, features) array, the same bits: numpy sums two or more
    columns in time order, which one compiled pass (:func:`_sums_in_time_order`) does without numpy's strided
    loop; a single column it sums pairwise, so that one stays with numpy."""
    if y.shape[1] == 1:
        return y.mean(axis=0)
    return _sums_in_time_order(y) / y.shape[0]


@cached_jit(nogil=True)
def _sums_in_time_order(y: np.ndarray) -> np.ndarray:
    total = y[0].copy()
    for t in range(1, y.shape[0]):
        for f in range(y.shape[1]):
            total[f] += y[t, f]
    return total
