"""Worker-side reductions (docs/storage.md §3) and the compiled helpers of the classification evidence (window
ranges, lag residuals, column means), against numpy written out."""

from types import SimpleNamespace

import numpy as np
import pytest

from meanfield.analysis.period import column_ranges, lag_residual
from meanfield.analysis.reductions import reduce_points
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
    got = reduce_points(series[None], _spec(y_range=(lo, hi), bins=bins))["hist"][0]
    assert got.dtype == np.uint32
    assert np.array_equal(got, _histogram_by_definition(series, lo, hi, bins))
    inside = (series >= lo) & (series <= hi)
    assert np.array_equal(got.sum(axis=1), inside.sum(axis=0))                 # nothing lost, nothing extra


def _spec(**changes):
    spec = dict(y_range=(-1.0, 1.0), bins=50, band_pairs=[(0, 1), (2, 0)], band_tol=0.05, band_cap=16,
                levels=5001, scale=1.0)
    return SimpleNamespace(**{**spec, **changes})


def test_distinct_counts_and_bands_equal_their_definition():
    # per point: distinct 5001-level codes int(levels·(v/scale + 1)/2) of each feature; per pair the plotted
    # feature where |filter| <= tol, the first band_cap in time order, their number and distinct codes; a point
    # with a NaN or inf keeps the fill values
    rng = np.random.default_rng(45)
    records = np.round(rng.uniform(-1, 1, (12, 1000, 3)), 2)
    records[3, 7, 2], records[4, 0, 0] = np.nan, np.inf
    spec = _spec()
    got = reduce_points(records, spec)
    codes = lambda v: np.unique((spec.levels * (v / spec.scale + 1.0) / 2.0).astype(np.int64)).size  # noqa: E731
    for i, series in enumerate(records):
        if not np.isfinite(series).all():
            assert (got["distinct"][i] == -1).all() and (got["band_count"][i] == -1).all()
            assert (got["hist"][i] == 0).all() and np.isnan(got["band_values"][i]).all()
            continue
        assert got["distinct"][i].tolist() == [codes(series[:, a]) for a in range(3)]
        for p, (plotted, by) in enumerate(spec.band_pairs):
            kept = series[np.abs(series[:, by]) <= spec.band_tol, plotted]
            assert got["band_count"][i, p] == kept.size > spec.band_cap
            np.testing.assert_array_equal(got["band_values"][i, p], kept[:spec.band_cap])
            assert got["band_distinct"][i, p] == codes(kept)


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
