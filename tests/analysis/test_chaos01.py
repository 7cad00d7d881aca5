"""0-1 test for chaos (Gottwald & Melbourne 2004, 2009)."""

import numpy as np
import pytest

from meanfield.analysis import chaos01_test
from meanfield.analysis.chaos01 import _displacement, band_count
from meanfield.errors import AnalysisError


def test_fft_displacement_equals_definition():
    phi = np.random.default_rng(2).normal(size=400)
    phi -= phi.mean()
    c, n_cut = np.array([0.9, 1.7, 2.3]), 40
    # Gottwald & Melbourne (2009) eq. (2.2)-(2.3): z(n) = sum_{j<=n} phi_j e^{ijc},
    # M_c(n) = mean over j of |z(j+n) - z(j)|^2 (here over the N - n available pairs)
    z = np.cumsum(phi * np.exp(1j * np.outer(c, np.arange(1, 401))), axis=1)
    direct = np.array([[np.mean(np.abs(z[i, n:] - z[i, :-n]) ** 2) for n in range(1, n_cut + 1)] for i in range(3)])
    assert np.allclose(_displacement(phi, c, n_cut), direct, rtol=1e-10, atol=0)


@pytest.mark.parametrize(
    "name, params, x0",
    [("logistic", [4.0], [0.3]), ("logistic", [3.7], [0.3]), ("henon", [1.4, 0.3], [0.1, 0.1])],
)
def test_chaotic_maps_give_k_near_one(maps, name, params, x0):
    x = maps.orbit(getattr(maps, name)[0], params, x0, 5000, transient=500)[:, 0]
    # G&M 2009 report K within ~0.01-0.05 of 1 for chaotic maps with N = 5000 noise-free samples
    assert chaos01_test(x) > 0.9


def test_regular_series_give_k_near_zero(maps):
    periodic = maps.orbit(maps.logistic[0], [3.5], [0.3], 5000, transient=1000)[:, 0]
    quasi = np.cos(2 * np.pi * maps.orbit(maps.circle[0], [(np.sqrt(5) - 1) / 2, 0.5], [0.1], 5000, 500)[:, 0])
    two_freq = np.sin(0.3 * np.arange(5000)) + np.sin(np.sqrt(2) * np.arange(5000))
    for x in (periodic, quasi, two_freq):
        assert abs(chaos01_test(x)) < 0.1  # regular: K = O(1/sqrt(N)) ~ 0.01 away from resonances


def test_deterministic_by_seed_and_constant_series(maps):
    x = maps.orbit(maps.logistic[0], [3.9], [0.2], 1000, transient=100)[:, 0]
    assert chaos01_test(x, seed=5) == chaos01_test(x, seed=5)
    assert chaos01_test(np.full(500, 0.3)) == 0.0


def test_stride_subsamples(maps):
    x = maps.orbit(maps.logistic[0], [4.0], [0.3], 4000, transient=100)[:, 0]
    slow = np.repeat(x, 10)  # oversampled by 10: every 10th sample recovers the map
    assert chaos01_test(slow, stride=10) == pytest.approx(chaos01_test(x), abs=1e-12)


@pytest.mark.parametrize(
    "x, kw",
    [([], {}), (np.ones(99), {}), (np.r_[np.ones(200), np.nan], {}), (np.ones(500), {"stride": 0}),
     (np.ones(500), {"n_c": 0}), (np.ones(500), {"stride": 6})],
)
def test_bad_input_raises(x, kw):
    with pytest.raises(AnalysisError):
        chaos01_test(x, **kw)


@pytest.mark.parametrize("r, bands", [(3.6, 2), (3.585, 4), (3.573, 8), (3.853, 3), (3.7, 1)])
def test_band_count_of_band_chaos(maps, r, bands):
    # band-merging points 3.5748 (8 -> 4), 3.5926 (4 -> 2), 3.6786 (2 -> 1) (Lorenz 1980); 3 bands at the end of the
    # period-3 window before its crisis at 3.8568 (Grebogi, Ott & Yorke 1982)
    x = maps.orbit(maps.logistic[0], [r], [0.3], 10_000, transient=1000)[:, 0]
    assert band_count(x, 50) == bands
    assert chaos01_test(x[::bands], 16) > 0.9
    if bands in (3, 8):
        # the band cycle hides the chaos from the full series' 0-1 test (K ~ 0.1), not from one band's
        assert chaos01_test(x, 16) < 0.5


def _band_count_by_definition(x, max_bands):
    # the largest p whose phase sub-series x[j::p] (over the first floor(n/p)·p samples) occupy disjoint
    # intervals, written with numpy
    for p in range(max_bands, 1, -1):
        phases = x[: x.size // p * p].reshape(-1, p)
        lo, hi = phases.min(axis=0), phases.max(axis=0)
        order = np.argsort(lo)
        if np.all(hi[order[:-1]] < lo[order[1:]]):
            return p
    return 1


@pytest.mark.parametrize("r", [3.5, 3.56, 3.573, 3.585, 3.6, 3.7, 3.83, 3.853, 4.0])
def test_band_count_equals_its_definition(maps, r):
    x = maps.orbit(maps.logistic[0], [r], [0.3], 4_001, transient=500)[:, 0]
    noisy = x + np.random.default_rng(2).normal(0, 1e-3, x.size)
    for series in (x, noisy, np.tile([0.2, -0.4, 0.9, 0.1, -0.7], 800)):
        for max_bands in (1, 2, 7, 40):
            assert band_count(series, max_bands) == _band_count_by_definition(series, max_bands)


def test_band_count_bad_input():
    with pytest.raises(AnalysisError):
        band_count(np.ones(50), 0)
    with pytest.raises(AnalysisError):
        band_count(np.ones(50), 30)  # fewer than 2 * max_bands samples
