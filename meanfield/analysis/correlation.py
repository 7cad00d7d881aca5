"""Autocorrelation functions (the reference's and the normalised one; docs/model.md §7.2).

:func:`autocorrelation_raw` reproduces the reference (``np.correlate(x, x, "full")`` of the raw series,
lags 0..99); :func:`autocorrelation` is the normalised estimator for analysis (mean removed, biased
estimator divided by the lag-0 value, computed with zero-padded FFTs in O(n log n)).
"""

from __future__ import annotations

import numpy as np
from scipy import fft

from meanfield.analysis._input import as_series
from meanfield.errors import AnalysisError

REFERENCE_WINDOW = 100
"""Number of lags the reference keeps (``plotting_window``, docs/model.md §7.2)."""


def autocorrelation_raw(x: np.ndarray, n_lags: int = REFERENCE_WINDOW) -> np.ndarray:
    """Reference autocorrelation: ``np.correlate(x, x, "full")`` at lags 0 to ``n_lags − 1`` (docs/model.md §7.2).

    No mean removal, no normalisation.

    Parameters
    ----------
    x : array_like, 1-D
        Finite series with at least ``n_lags`` samples.
    n_lags : int
        Number of lags (reference 100).

    Returns
    -------
    numpy.ndarray, length ``n_lags``
    """
    if int(n_lags) < 1:
        raise AnalysisError(f"n_lags: {n_lags!r}; must be a positive integer")
    arr = as_series(x, name="x", min_length=int(n_lags))
    full = np.correlate(arr, arr, "full")
    return full[arr.size - 1 : arr.size - 1 + int(n_lags)]


def autocorrelation(x: np.ndarray, max_lag: int | None = None) -> np.ndarray:
    """Normalised autocorrelation ``ρ(k) = Σ_t x̃_t x̃_{t+k} / Σ_t x̃_t²`` for lags k from 0 to ``max_lag``.

    ``x̃`` is the mean-removed series; the sum at lag ``k`` has ``n − k`` terms (biased estimator, which is
    positive semi-definite and has ``|ρ| ≤ 1``). Computed with a zero-padded FFT.

    Parameters
    ----------
    x : array_like, 1-D
        Finite, non-constant series, at least 2 samples.
    max_lag : int, optional
        Largest lag (default and maximum ``n − 1``).

    Returns
    -------
    numpy.ndarray, length ``max_lag + 1``; ``ρ(0) = 1``.
    """
    arr = as_series(x, name="x", min_length=2)
    n = arr.size
    top = n - 1 if max_lag is None else int(max_lag)
    if not 0 <= top <= n - 1:
        raise AnalysisError(f"max_lag: {max_lag!r}; must lie in [0, {n - 1}] for {n} samples")
    if np.ptp(arr) == 0:
        raise AnalysisError("x: constant series; its autocorrelation is undefined (zero variance)")
    size = fft.next_fast_len(2 * n, real=True)
    spec = fft.rfft(arr - arr.mean(), size)
    acov = fft.irfft(spec.real**2 + spec.imag**2, size)[: top + 1]
    return acov / acov[0]


def dominant_lag(x: np.ndarray, max_lag: int) -> int:
    """Lag ``2 … max_lag`` at which the normalised autocorrelation is largest: the period of the band cycle
    of band chaos, or of the near-cycle that a chaotic orbit shadows next to a periodic window. The 0–1 test
    on the series sub-sampled at that lag sees the chaos instead of the cycle (Gottwald & Melbourne 2009 §5
    sub-sample oversampled series the same way).

    Parameters
    ----------
    x : array_like, 1-D
        Finite, non-constant series with more than ``max_lag`` samples.
    max_lag : int
        Largest lag (≥ 2).
    """
    if int(max_lag) < 2:
        raise AnalysisError(f"max_lag: {max_lag!r}; must be at least 2")
    rho = autocorrelation(x, int(max_lag))
    return 2 + int(np.argmax(rho[2:]))
