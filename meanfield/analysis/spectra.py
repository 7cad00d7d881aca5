"""Power spectra, dominant frequencies and spectral entropy (docs/model.md §7.2).

:func:`power_spectrum_raw` reproduces the reference's figure-5 spectrum exactly (raw series, no mean
removal, no window). :func:`power_spectrum` is the estimator to use for analysis: mean removed, Hann window,
Welch averaging over half-overlapping segments (Welch 1967, via :func:`scipy.signal.welch`).
Frequencies are in cycles per step (0 … 0.5).
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from meanfield.analysis._input import as_series
from meanfield.errors import AnalysisError


def power_spectrum_raw(x: np.ndarray, log: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Reference power spectrum (docs/model.md §7.2).

    ``X = rfft(x)`` of the raw series; power ``(Re X² + Im X²) / n``; frequencies ``rfftfreq(n)`` (DC
    included); the log variant is the natural log of that power.

    Parameters
    ----------
    x : array_like, 1-D
        Finite series (the paper uses ``mo_se[:, 0]`` over all saved steps).
    log : bool
        Return ``ln(power)`` (``-inf`` where the power is exactly zero, as the reference).

    Returns
    -------
    freqs, power : numpy.ndarray
        Both of length ``n // 2 + 1``.
    """
    arr = as_series(x, name="x", min_length=2)
    spec = np.fft.rfft(arr)
    power = (spec.real**2 + spec.imag**2) / arr.size
    if log:
        with np.errstate(divide="ignore"):
            power = np.log(power)
    return np.fft.rfftfreq(arr.size), power


def power_spectrum(x: np.ndarray, nperseg: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Welch power spectral density: mean removed, Hann window, 50 % overlapping segments.

    Parameters
    ----------
    x : array_like, 1-D
        Finite series, at least 8 samples.
    nperseg : int, optional
        Segment length; default ``min(n, 1024)`` (frequency resolution ``1 / nperseg``).

    Returns
    -------
    freqs, psd : numpy.ndarray
        One-sided density in (units of x)² per (cycle/step); exactly zero for a constant series (no
        round-off residue of the mean removal).
    """
    arr = as_series(x, name="x", min_length=8)
    if np.ptp(arr) == 0:
        arr = np.zeros_like(arr)
    seg = min(arr.size, 1024) if nperseg is None else int(nperseg)
    if not 8 <= seg <= arr.size:
        raise AnalysisError(f"nperseg: {nperseg!r}; must lie in [8, {arr.size}] (the series length)")
    return signal.welch(arr, fs=1.0, window="hann", nperseg=seg, detrend="constant", scaling="density")


def _check_power(power: np.ndarray) -> np.ndarray:
    p = as_series(power, name="power")
    if np.any(p < 0):
        raise AnalysisError("power: negative values; pass a power spectrum, not its log")
    if not np.any(p > 0):
        raise AnalysisError("power: all zero (constant series); spectrum carries no information")
    return p


def dominant_frequencies(freqs: np.ndarray, power: np.ndarray, n: int = 3) -> np.ndarray:
    """Frequencies of the ``n`` highest local maxima of a spectrum, strongest first.

    End points (DC, Nyquist) count as maxima when they exceed their single neighbour, so a period-2
    signal reports 0.5. Pass a mean-removed spectrum (:func:`power_spectrum`) to keep DC out of the list.

    Parameters
    ----------
    freqs, power : array_like, 1-D
        A spectrum as returned by :func:`power_spectrum` or :func:`power_spectrum_raw` (linear power; the same
        length).
    n : int
        Number of peaks wanted; fewer are returned when the spectrum has fewer maxima.

    Returns
    -------
    numpy.ndarray
    """
    f = as_series(freqs, name="freqs")
    p = _check_power(power)
    if f.shape != p.shape:
        raise AnalysisError(f"freqs {f.shape} and power {p.shape} must have the same shape")
    padded = np.concatenate(([-np.inf], p, [-np.inf]))
    peaks, _ = signal.find_peaks(padded)
    peaks = peaks - 1
    order = np.argsort(p[peaks], kind="stable")[::-1][: max(int(n), 0)]
    return f[peaks[order]]


def spectral_entropy(power: np.ndarray) -> float:
    """Normalised Shannon entropy of a power spectrum, in [0, 1].

    ``H = −Σ p_k ln p_k / ln K`` with ``p_k = P_k / Σ P`` over the ``K`` bins: 0 for a single line,
    1 for a flat (white) spectrum. Discrete spectra (periodic, quasi-periodic) give low values, broadband
    (chaotic) spectra high values (Powell & Percival 1979).

    Parameters
    ----------
    power : array_like, 1-D
        Non-negative power, not all zero, at least 2 bins.

    Returns
    -------
    float
    """
    p = _check_power(power)
    if p.size < 2:
        raise AnalysisError("power: at least 2 frequency bins needed for a normalised entropy")
    prob = p[p > 0] / p.sum()
    return float(-np.sum(prob * np.log(prob)) / np.log(p.size))
