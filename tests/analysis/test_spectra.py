"""Spectra (docs/model.md §7.2) and spectral statistics."""

import numpy as np
import pytest

from meanfield.analysis import dominant_frequencies, power_spectrum, spectral_entropy
from meanfield.analysis.spectra import power_spectrum_raw
from meanfield.errors import AnalysisError


@pytest.mark.parametrize("n", [257, 1000])
def test_raw_spectrum_equals_reference_formula(n):
    x = np.random.default_rng(n).normal(0.3, 1.0, n)
    # docs/model.md §7.2 written out: X = rfft(raw x); power = (Re^2 + Im^2) / n; freqs = rfftfreq(n); log = ln(power)
    X = np.fft.rfft(x)
    ref_power = (X.real**2 + X.imag**2) / len(x)
    freqs, power = power_spectrum_raw(x)
    assert np.array_equal(freqs, np.fft.rfftfreq(n))
    assert np.allclose(power, ref_power, rtol=1e-14, atol=0)
    assert power[0] == pytest.approx(n * x.mean() ** 2, rel=1e-12)  # DC kept (no mean removal)
    _, logp = power_spectrum_raw(x, log=True)
    assert np.allclose(logp, np.log(ref_power), rtol=1e-14, atol=1e-14)


def test_welch_spectrum_finds_the_line_and_removes_the_mean():
    t = np.arange(8192)
    x = 5.0 + np.sin(2 * np.pi * 0.125 * t) + 0.01 * np.random.default_rng(0).normal(size=t.size)
    f, p = power_spectrum(x)
    assert f[np.argmax(p)] == pytest.approx(0.125, abs=1 / 1024)  # resolution of a 1024-sample segment
    assert p[0] < 1e-3 * p.max()  # mean removed: no DC line although the mean is 5
    # Parseval for a density: integral of the one-sided PSD = variance (0.5 for a unit sine)
    assert np.trapezoid(p, f) == pytest.approx(0.5, rel=0.02)


def test_dominant_frequencies_order_and_endpoints():
    t = np.arange(4096)
    x = np.sin(2 * np.pi * 0.1 * t) + 0.5 * np.sin(2 * np.pi * 0.3 * t) + 0.25 * (-1.0) ** t
    f, p = power_spectrum(x)
    got = dominant_frequencies(f, p, n=3)
    assert np.allclose(got, [0.1, 0.3, 0.5], atol=1 / 1024)  # the Nyquist line (period 2) is found
    assert dominant_frequencies(f, p, n=1).size == 1


def test_spectral_entropy_line_versus_white():
    assert spectral_entropy(np.r_[np.zeros(50), 1.0, np.zeros(50)]) == 0.0
    assert spectral_entropy(np.ones(64)) == pytest.approx(1.0, abs=1e-12)
    rng = np.random.default_rng(1)
    # Welch-averaged white noise is nearly flat: entropy within a few per cent of 1
    assert spectral_entropy(power_spectrum(rng.normal(size=20000))[1]) > 0.97
    t = np.arange(20000)
    assert spectral_entropy(power_spectrum(np.sin(2 * np.pi * t / 7))[1]) < 0.3


@pytest.mark.parametrize(
    "call",
    [
        lambda: power_spectrum_raw([]),
        lambda: power_spectrum_raw([1.0]),
        lambda: power_spectrum_raw([0.0, np.nan, 1.0]),
        lambda: power_spectrum([]),
        lambda: power_spectrum(np.ones(5)),
        lambda: power_spectrum(np.r_[np.ones(20), np.inf]),
        lambda: power_spectrum(np.ones(100), nperseg=200),
        lambda: spectral_entropy([]),
        lambda: spectral_entropy([1.0]),
        lambda: spectral_entropy(np.zeros(10)),
        lambda: spectral_entropy(power_spectrum(np.full(100, 0.3))[1]),  # constant: no round-off entropy
        lambda: spectral_entropy([1.0, -1.0]),
        lambda: spectral_entropy([1.0, np.nan]),
        lambda: dominant_frequencies([0.0, 0.5], [1.0, np.nan]),
        lambda: dominant_frequencies([0.0, 0.5], [1.0]),
    ],
)
def test_bad_input_raises(call):
    with pytest.raises(AnalysisError):
        call()
