"""Poincaré sections and orbit statistics (docs/model.md §7.1).

Two kinds of section are offered:

* :func:`poincare_band` — the reference's *band filter*: the values of a plotted feature at the times where a
  filter feature lies within ``±tol`` (docs/model.md §7.1, ``filtering_range`` = 0.001), optionally quantised to the
  reference's 5001 levels and made unique. Kept for compatibility with the paper's figures.
* :func:`poincare_section` — a proper section of a discrete trajectory: the states where the filter feature
  crosses a level (sign change between consecutive samples), linearly interpolated between the two samples,
  optionally on the stroboscopic sequence (every ``stride``-th sample).

:func:`quantise` / :func:`dequantise` implement the reference quantisation formulas and
:func:`distinct_count` the reference's distinct-value heuristic ("unique_len", docs/model.md §7.1).
"""

from __future__ import annotations

import numpy as np

from meanfield.analysis._input import as_series
from meanfield.compiled_cache import cached_jit
from meanfield.errors import AnalysisError

REFERENCE_LEVELS = 5001
"""Number of quantisation levels of the reference's Poincaré filter and periodic heuristic (docs/model.md §7.1)."""

REFERENCE_BAND = 0.001
"""Half-width of the reference's Poincaré band (``filtering_range``, docs/model.md §7.1)."""


def _check_scale(max_y: float, levels: int) -> None:
    if not (np.isfinite(max_y) and max_y > 0):
        raise AnalysisError(f"max_y: {max_y!r}; must be a finite positive number")
    if int(levels) < 1:
        raise AnalysisError(f"levels: {levels!r}; must be a positive integer")


def quantise(values: np.ndarray, max_y: float, levels: int = REFERENCE_LEVELS) -> np.ndarray:
    """Quantise values to integer levels as the reference does (docs/model.md §7.1).

    ``q = int(levels · (v / max_y + 1) / 2)`` with ``int`` truncating toward zero.

    Parameters
    ----------
    values : array_like
        Finite values (any shape).
    max_y : float
        Scale: values in ``[-max_y, max_y]`` map to ``0 .. levels``.
    levels : int
        Number of levels (reference: 5001).

    Returns
    -------
    numpy.ndarray of ~numpy.int64
        Level indices, same shape as ``values``.
    """
    _check_scale(max_y, levels)
    v = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(v)):
        raise AnalysisError("values: NaN or infinite values cannot be quantised")
    return level_codes(v.ravel(), float(max_y), int(levels)).reshape(v.shape)


@cached_jit(nogil=True)
def level_codes(values: np.ndarray, max_y: float, levels: int) -> np.ndarray:
    """:func:`quantise`'s level indices of finite 1-D ``values`` without the checks (compiled callers)."""
    return (levels * (values / max_y + 1.0) / 2.0).astype(np.int64)


def dequantise(codes: np.ndarray, max_y: float, levels: int = REFERENCE_LEVELS) -> np.ndarray:
    """Map level indices back to values, ``(q / levels · 2 − 1) · max_y`` (docs/model.md §7.1)."""
    _check_scale(max_y, levels)
    return (np.asarray(codes, dtype=np.float64) / levels * 2.0 - 1.0) * max_y


#: Most levels whose codes :func:`distinct_count` marks in a table (a byte each); more are sorted instead.
TABLE_LEVELS = 1 << 20


def distinct_count(x: np.ndarray, max_y: float = 1.0, levels: int = REFERENCE_LEVELS) -> int:
    """Number of distinct quantised values of a series (the reference's periodic heuristic).

    The reference counts distinct 5001-level values of ``mo_se`` feature 0 and calls fewer than 80
    "periodic", fewer than 2500 (bifurcation diagram) or 625 (phase diagram; docs/model.md §7.1) "quasi-periodic".
    The phase diagram quantises on ``[-1, 1]`` (``max_y = 1``). The count is the size of
    ``np.unique(quantise(x, max_y, levels))``, counted in one compiled pass that marks the codes of
    ``[-max_y, max_y]`` (0 .. levels) in a table (:func:`~meanfield.analysis.sections.count_codes`; a sweep
    counts every feature and band of every point, and sorting them was a tenth of a Figure 3 point's cost,
    bench/RESULTS.md).

    Parameters
    ----------
    x : array_like, 1-D
        Finite series.
    max_y : float
        Quantisation scale (see :func:`quantise`).
    levels : int
        Number of levels.

    Returns
    -------
    int
    """
    arr = as_series(x, name="x")
    codes = quantise(arr, max_y, levels)
    if levels > TABLE_LEVELS:
        return int(np.unique(codes).size)
    return int(count_codes(codes, int(levels)))


@cached_jit(nogil=True)
def count_codes(codes: np.ndarray, levels: int) -> int:
    """Number of distinct ``codes`` (:func:`quantise`'s): those in 0 .. levels marked in a table, the rare
    ones outside sorted."""
    seen = np.zeros(levels + 1, dtype=np.bool_)
    outside = []
    count = 0
    for code in codes:
        if 0 <= code <= levels:
            if not seen[code]:
                seen[code] = True
                count += 1
        else:
            outside.append(code)
    if outside:
        count += np.unique(np.array(outside)).size
    return count


def poincare_band(
    plotted: np.ndarray,
    filter_values: np.ndarray,
    tol: float = REFERENCE_BAND,
    max_y: float | None = None,
    levels: int | None = REFERENCE_LEVELS,
) -> np.ndarray:
    """Reference Poincaré band filter (docs/model.md §7.1).

    Keeps the times where ``filter_values`` lies in ``[-tol, tol]`` and returns the plotted feature there.
    With ``levels`` set (the reference behaviour) the kept values are quantised with :func:`quantise`,
    mapped back with :func:`dequantise` and made unique (sorted).

    Parameters
    ----------
    plotted, filter_values : array_like, 1-D
        Plotted feature and filter feature of the same trajectory (the same length).
    tol : float
        Band half-width (reference 0.001).
    max_y : float, optional
        Quantisation scale; the reference uses the global maximum (not absolute maximum) of the statistic
        over the sweep. Default: the maximum of ``plotted``.
    levels : int or None
        Quantisation levels (reference 5001); None returns the raw kept values in time order.

    Returns
    -------
    numpy.ndarray, 1-D
        Possibly empty when the band is never visited.
    """
    p = as_series(plotted, name="plotted")
    f = as_series(filter_values, name="filter_values")
    if p.shape != f.shape:
        raise AnalysisError(f"plotted {p.shape} and filter_values {f.shape} must have the same shape")
    if not (np.isfinite(tol) and tol >= 0):
        raise AnalysisError(f"tol: {tol!r}; must be a finite non-negative number")
    kept = p[np.abs(f) <= tol]
    if levels is None:
        return kept
    scale = float(np.max(p)) if max_y is None else float(max_y)
    return dequantise(np.unique(quantise(kept, scale, levels)), scale, levels)


def poincare_section(
    series: np.ndarray,
    filter_index: int,
    level: float = 0.0,
    direction: int = 1,
    stride: int = 1,
) -> np.ndarray:
    """Proper Poincaré section of a discrete trajectory by level crossings of one feature.

    On the sequence ``y_j = series[j·stride]`` (stroboscopic subsampling when ``stride > 1``), a crossing
    happens between ``y_j`` and ``y_{j+1}`` when ``g = y[:, filter_index] − level`` changes sign
    (``g_j < 0 ≤ g_{j+1}`` upward, ``g_j > 0 ≥ g_{j+1}`` downward). The returned point is the linear
    interpolation ``y_j + s (y_{j+1} − y_j)`` with ``s = g_j / (g_j − g_{j+1})``, so its filter coordinate
    equals ``level`` exactly up to rounding.

    Parameters
    ----------
    series : array_like, shape (time, features)
        Finite trajectory.
    filter_index : int
        Feature whose level crossings define the section.
    level : float
        Section level.
    direction : {1, -1, 0}
        Upward crossings, downward crossings, or both.
    stride : int
        Subsampling step ``L`` (1: every sample).

    Returns
    -------
    numpy.ndarray, shape (crossings, features)
    """
    y = as_series(series, name="series", min_length=2, ndim=(2,))
    if not -y.shape[1] <= filter_index < y.shape[1]:
        raise AnalysisError(f"filter_index: {filter_index}; series has {y.shape[1]} features")
    if direction not in (1, -1, 0):
        raise AnalysisError(f"direction: {direction!r}; allowed 1 (up), -1 (down), 0 (both)")
    if int(stride) < 1:
        raise AnalysisError(f"stride: {stride!r}; must be a positive integer")
    y = y[:: int(stride)]
    g = y[:, filter_index] - float(level)
    g0, g1 = g[:-1], g[1:]
    up = (g0 < 0) & (g1 >= 0)
    down = (g0 > 0) & (g1 <= 0)
    hit = up if direction == 1 else down if direction == -1 else up | down
    j = np.flatnonzero(hit)
    s = (g0[j] / (g0[j] - g1[j]))[:, None]
    return y[j] + s * (y[j + 1] - y[j])
