"""Autocorrelation (docs/model.md §7.2)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from meanfield.analysis import autocorrelation
from meanfield.analysis.correlation import autocorrelation_raw, dominant_lag
from meanfield.errors import AnalysisError


def test_raw_acf_equals_reference_formula():
    x = np.random.default_rng(7).normal(0.5, 1.0, 1000)
    # docs/model.md §7.2 written out: np.correlate(x, x, "full") of the raw series, lags 0..99
    full = np.correlate(x, x, "full")
    ref = full[len(x) - 1 : len(x) - 1 + 100]
    assert np.array_equal(autocorrelation_raw(x), ref)
    assert autocorrelation_raw(x)[0] == pytest.approx(np.sum(x * x), rel=1e-13)


@settings(deadline=None, max_examples=50)
@given(arrays(np.float64, st.integers(2, 80), elements=st.floats(-10, 10)))
def test_normalised_acf_equals_direct_sum(x):
    dev = x - x.mean()
    if np.sum(dev**2) < 1e-6:  # (near-)constant draws: undefined, tested below
        return
    direct = np.array([np.sum(dev[: x.size - k] * dev[k:]) for k in range(x.size)]) / np.sum(dev**2)
    # FFT round-off: ~1e-15 relative to the lag-0 value
    assert np.allclose(autocorrelation(x), direct, atol=1e-10, rtol=0)


def test_acf_of_a_sine_is_a_cosine():
    t = np.arange(100000)
    rho = autocorrelation(np.sin(2 * np.pi * t / 16), max_lag=64)
    k = np.arange(65)
    # biased estimator: rho(k) = (1 - k/n) cos(2 pi k / 16) up to O(1/n)
    assert np.allclose(rho, np.cos(2 * np.pi * k / 16), atol=1e-3)
    assert rho.size == 65 and rho[0] == 1.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: autocorrelation_raw([]),
        lambda: autocorrelation_raw(np.ones(50)),  # fewer samples than the 100 reference lags
        lambda: autocorrelation_raw(np.r_[np.ones(200), np.nan]),
        lambda: autocorrelation_raw(np.ones(200), n_lags=0),
        lambda: autocorrelation([]),
        lambda: autocorrelation([1.0]),
        lambda: autocorrelation(np.ones(10)),
        lambda: autocorrelation(np.full(100, 0.3)),  # mean 0.3 is not exact in floating point
        lambda: autocorrelation([1.0, np.inf, 0.0]),
        lambda: autocorrelation(np.arange(10.0), max_lag=10),
    ],
)
def test_bad_input_raises(call):
    with pytest.raises(AnalysisError):
        call()


def test_dominant_lag_finds_the_cycle_a_chaotic_orbit_shadows(maps):
    # Henon a = 1.266, b = 0.3 (lambda1 ~ 0.05): chaos next to the 14-cycle window; the autocorrelation peaks at 14
    x = maps.orbit(maps.henon[0], [1.266, 0.3], [0.1, 0.1], 10_000, transient=1000)[:, 0]
    assert dominant_lag(x, 100) == 14
    with pytest.raises(AnalysisError):
        dominant_lag(x, 1)
