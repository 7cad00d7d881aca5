"""Worker-side reductions (docs/storage.md §3) and the window ranges of the classification evidence, against
numpy written out."""

from types import SimpleNamespace

import numpy as np
import pytest

from meanfield.analysis.period import column_ranges
from meanfield.analysis.reductions import orbit_histogram


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
