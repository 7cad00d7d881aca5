"""Per-point reductions computed in the worker, so a full-resolution sweep ships numbers instead of raw
trajectories (docs/storage.md §3): the density histogram over fixed y-bins behind a density bifurcation
diagram, the reference's Poincaré band points (capped, with the total count), and the number of distinct
5001-level quantised values, the reference's "unique_len" (docs/model.md §7.1).

The quantisation and the band filter are those of :mod:`meanfield.analysis.sections`; this module only
applies them to every point of a chunk and packs the results into fixed-shape arrays. Quantisation uses a
FIXED scale (``ReductionSpec.scale``, default 1 = the phase-diagram convention) because a worker cannot know
the sweep's global maximum that the reference's bifurcation plot uses; the raw band values are kept so a plot
can re-quantise them with the global maximum afterwards.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .sections import distinct_count, poincare_band

#: Fill values of points/entries without a value (not done, band never visited, non-finite orbit).
MISSING_COUNT = -1


def bin_edges(spec) -> np.ndarray:
    """The ``bins + 1`` fixed edges of the density histogram on ``spec.y_range``."""
    lo, hi = spec.y_range
    return np.linspace(lo, hi, spec.bins + 1)


def orbit_histogram(series: np.ndarray, spec) -> np.ndarray:
    """Counts of the recorded values of every feature in the fixed y-bins, shape (M, bins), uint32.

    Bin b holds lo + b·Δ <= v < lo + (b+1)·Δ, the top edge included in the last bin; values outside
    ``y_range`` are not counted. The bin of v is floor((v − lo) · (bins / (hi − lo))), computed in one compiled
    pass over the series (:func:`_bin_counts`).
    """
    lo, hi = spec.y_range
    out = np.zeros((series.shape[1], spec.bins), dtype=np.uint32)
    _bin_counts(np.asarray(series, dtype=np.float64), float(lo), float(hi), spec.bins / (hi - lo), out)
    return out


@numba.njit(cache=True, nogil=True)
def _bin_counts(series: np.ndarray, lo: float, hi: float, per_unit: float, out: np.ndarray) -> None:
    """Add every value of ``series`` (time, features) to ``out[feature, bin]`` (:func:`orbit_histogram`)."""
    bins = out.shape[1]
    for t in range(series.shape[0]):
        for f in range(series.shape[1]):
            v = series[t, f]
            if v == hi:
                out[f, bins - 1] += 1
                continue
            position = math.floor((v - lo) * per_unit)
            if 0.0 <= position < bins:
                out[f, int(position)] += 1


def band_points(series: np.ndarray, spec):
    """Poincaré band of docs/model.md §7.1 for every (plotted, filter) pair of ``spec.band_pairs``.

    Returns ``(values, count, distinct)``: the plotted feature at the first ``band_cap`` times where
    |filter| <= ``band_tol`` (time order, NaN-padded, shape (pairs, cap)), the number of such times, and the
    number of distinct ``levels``-level values among all of them on the fixed scale.
    """
    n_pairs = len(spec.band_pairs)
    values = np.full((n_pairs, spec.band_cap), np.nan)
    count = np.zeros(n_pairs, dtype=np.int64)
    distinct = np.zeros(n_pairs, dtype=np.int32)
    for n, (plotted, kept_by) in enumerate(spec.band_pairs):
        kept = poincare_band(series[:, plotted], series[:, kept_by], spec.band_tol, levels=None)
        count[n] = kept.size
        values[n, :min(kept.size, spec.band_cap)] = kept[:spec.band_cap]
        if kept.size:
            distinct[n] = distinct_count(kept, spec.scale, spec.levels)
    return values, count, distinct


def reduce_points(records: np.ndarray, spec) -> dict:
    """All reductions for a chunk: ``records`` (n, rows, M) of the chosen observable.

    Returns arrays with the point on axis 0: ``hist`` (n, M, bins) uint32, ``distinct`` (n, M) int32,
    ``band_values`` (n, pairs, cap) float64, ``band_count`` (n, pairs) int64, ``band_distinct`` (n, pairs)
    int32. A point whose orbit is not finite gets zero counts and -1 distinct counts.
    """
    n, _, n_features = records.shape
    n_pairs = len(spec.band_pairs)
    out = {"hist": np.zeros((n, n_features, spec.bins), dtype=np.uint32),
           "distinct": np.full((n, n_features), MISSING_COUNT, dtype=np.int32),
           "band_values": np.full((n, n_pairs, spec.band_cap), np.nan),
           "band_count": np.full((n, n_pairs), MISSING_COUNT, dtype=np.int64),
           "band_distinct": np.full((n, n_pairs), MISSING_COUNT, dtype=np.int32)}
    for i in range(n):
        series = records[i]
        if not np.all(np.isfinite(series)):
            continue
        out["hist"][i] = orbit_histogram(series, spec)
        out["distinct"][i] = [distinct_count(series[:, a], spec.scale, spec.levels) for a in range(n_features)]
        out["band_values"][i], out["band_count"][i], out["band_distinct"][i] = band_points(series, spec)
    return out


__all__ = ["bin_edges", "orbit_histogram", "band_points", "reduce_points", "MISSING_COUNT"]
