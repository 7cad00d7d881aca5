"""Worker-side reductions (docs/storage.md §3) and the compiled helpers of the classification evidence (window
ranges, lag residuals, column means), against numpy written out."""

from types import SimpleNamespace

import numpy as np
import pytest

from meanfield.analysis.period import column_ranges, lag_residual
from meanfield.analysis.reductions import orbit_histogram
from meanfield.analysis.regularity import column_means


def _histogram_by_definition(series, lo, hi, bins):
    # bin b holds lo + b·Δ <= v < lo + (b+1)·Δ, computed as floor((v - lo)·bins/(hi - lo)); v = hi in the last bin
    index = np.floor((series - lo) * (bins / (hi - lo)))
    index[series == hi] = bins - 1
    out = np.zeros((series.shape[1], bins), dtype=np.uint32)
    for f in range(series.shape[1]):
        column = index[:, f]
        column = column[(column >= 0) & (column < bins)].astype(np.int64)
        out[f] = np.bincount(column, minlength=bins)
    return out


@pytest.mark.parametrize("lo, hi, bins", [(-1.0, 1.0, 500), (-0.3, 0.7, 7), (0.0, 1.0, 1)])
def test_orbit_histogram_equals_its_definition(lo, hi, bins):
    rng = np.random.default_rng(4)
    edges = np.linspace(lo, hi, bins + 1)
    series = np.concatenate([rng.uniform(lo - 0.5, hi + 0.5, (20_000, 3)),
                             np.repeat(edges[:, None], 3, axis=1),           # every edge, both ends included
                             np.array([[1e300, -1e300, hi]])])
    got = orbit_histogram(series, SimpleNamespace(y_range=(lo, hi), bins=bins))
    assert got.dtype == np.uint32
    assert np.array_equal(got, _histogram_by_definition(series, lo, hi, bins))
    inside = (series >= lo) & (series <= hi)
    assert np.array_equal(got.sum(axis=1), inside.sum(axis=0))                 # nothing lost, nothing extra


def test_column_ranges_are_numpys_minima_and_maxima():
    window = np.random.default_rng(5).normal(size=(5_001, 4)) * [1.0, 1e-9, 1e6, 0.0]
    lo, hi = column_ranges(window)
    assert np.array_equal(lo, window.min(axis=0)) and np.array_equal(hi, window.max(axis=0))


@pytest.mark.parametrize("shape", [(2_000, 3), (501, 1), (64, 12)])
def test_lag_residual_is_the_largest_feature_difference(shape):
    y = np.random.default_rng(6).normal(size=shape)
    for p in (1, 2, 5, shape[0] - 1):
        assert np.array_equal(lag_residual(y, p), np.max(np.abs(y[p:] - y[:-p]), axis=1))
    assert np.array_equal(lag_residual(y[:, :1], 3), np.abs(y[3:, 0] - y[:-3, 0]))   # a strided column


@pytest.mark.parametrize("columns", [1, 2, 3, 6])
def test_column_means_and_deviations_have_numpys_bits(columns):
    # the evidence stores the weighted-Birkhoff drift, which divides by these: the same bits as before
    rng = np.random.default_rng(7)
    for y in (rng.normal(size=(75_000, columns)), 3.0 + 1e8 * rng.uniform(-1, 1, (4_999, columns))):
        assert np.array_equal(column_means(y), y.mean(axis=0))
        assert np.array_equal(np.sqrt(column_means((y - column_means(y)) ** 2)), y.std(axis=0))
