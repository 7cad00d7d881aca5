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

import numpy as np

from meanfield.compiled_cache import cached_jit

from ..errors import AnalysisError
from .sections import TABLE_LEVELS, count_codes, level_codes

#: Fill values of points/entries without a value (not done, band never visited, non-finite orbit).
MISSING_COUNT = -1


def bin_edges(spec) -> np.ndarray:
    """The ``bins + 1`` fixed edges of the density histogram on ``spec.y_range``."""
    lo, hi = spec.y_range
    return np.linspace(lo, hi, spec.bins + 1)


@cached_jit(nogil=True)
def _bin_counts(series: np.ndarray, lo: float, hi: float, per_unit: float, out: np.ndarray) -> None:
    """Add every value of ``series`` (time, features) to ``out[feature, bin]``: bin b holds lo + b·Δ <= v <
    lo + (b+1)·Δ, the top edge included in the last bin, values outside ``y_range`` not counted; the bin of v is
    floor((v − lo) · (bins / (hi − lo)))."""
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


@cached_jit(nogil=True)
def _reduce_chunk(records, lo, hi, per_unit, scale, levels, pairs, tol, hist, distinct, bands) -> None:
    """:func:`reduce_points` of every finite point of ``records`` (n, rows, M) into the output arrays: the
    histogram (:func:`_bin_counts`), the distinct level codes of every feature
    (:func:`~meanfield.analysis.sections.count_codes`), and in ``bands`` = (values, count, distinct), per
    (plotted, filter) pair, the plotted feature at the times where |filter| <= ``tol``: the first
    ``values.shape[2]`` in time order, their number and their distinct codes
    (:func:`~meanfield.analysis.sections.poincare_band` with ``levels=None``)."""
    band_values, band_count, band_distinct = bands
    n, rows, features = records.shape
    cap = band_values.shape[2]
    kept = np.empty(rows)
    for i in range(n):
        series = records[i]
        if not np.all(np.isfinite(series)):
            continue
        _bin_counts(series, lo, hi, per_unit, hist[i])
        for a in range(features):
            distinct[i, a] = count_codes(level_codes(np.ascontiguousarray(series[:, a]), scale, levels), levels)
        for p in range(pairs.shape[0]):
            k = 0
            for t in range(rows):
                if abs(series[t, pairs[p, 1]]) <= tol:
                    kept[k] = series[t, pairs[p, 0]]
                    k += 1
            band_count[i, p] = k
            band_values[i, p, :min(k, cap)] = kept[:min(k, cap)]
            band_distinct[i, p] = count_codes(level_codes(kept[:k], scale, levels), levels) if k else 0


def reduce_points(records: np.ndarray, spec) -> dict:
    """All reductions for a chunk: ``records`` (n, rows, M) of the chosen observable, in one compiled pass
    (:func:`_reduce_chunk`).

    Returns arrays with the point on axis 0: ``hist`` (n, M, bins) uint32 over the fixed edges
    :func:`bin_edges`, ``distinct`` (n, M) int32, ``band_values`` (n, pairs, cap) float64 (NaN-padded),
    ``band_count`` (n, pairs) int64, ``band_distinct`` (n, pairs) int32. A point whose orbit is not finite gets
    zero counts and -1 distinct counts.
    """
    n, _, n_features = records.shape
    n_pairs = len(spec.band_pairs)
    if spec.levels > TABLE_LEVELS:
        raise AnalysisError(f"levels = {spec.levels} is not allowed: at most {TABLE_LEVELS}")
    out = {"hist": np.zeros((n, n_features, spec.bins), dtype=np.uint32),
           "distinct": np.full((n, n_features), MISSING_COUNT, dtype=np.int32),
           "band_values": np.full((n, n_pairs, spec.band_cap), np.nan),
           "band_count": np.full((n, n_pairs), MISSING_COUNT, dtype=np.int64),
           "band_distinct": np.full((n, n_pairs), MISSING_COUNT, dtype=np.int32)}
    lo, hi = spec.y_range
    pairs = np.asarray(spec.band_pairs, dtype=np.int64).reshape(n_pairs, 2)
    _reduce_chunk(np.ascontiguousarray(records, dtype=np.float64), float(lo), float(hi), spec.bins / (hi - lo),
                  float(spec.scale), int(spec.levels), pairs, float(spec.band_tol), out["hist"], out["distinct"],
                  (out["band_values"], out["band_count"], out["band_distinct"]))
    return out


__all__ = ["bin_edges", "reduce_points", "MISSING_COUNT"]
