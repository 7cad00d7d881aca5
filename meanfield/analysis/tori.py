"""Quasi-periodic orbits identified positively: line frequencies, torus generators, the section's closed curve.

A quasi-periodic orbit on a d-torus is ``x_t = h(θ_0 + t ω)`` with h continuous on the torus and ω a vector of
d rationally independent frequencies (a map forced with period q adds the known frequency 1/q). Its spectrum
is made of lines at integer combinations ``Σ n_i ω_i`` (mod 1), and the points of the orbit taken at one
phase of every frequency but the first lie on a closed curve, traversed in the order of the first phase
(the frequency-analysis view of Laskar, "Frequency analysis for multi-dimensional systems", Physica D 67, 257
(1993); for circle maps the curve is the invariant circle and ω the rotation number, Arnold 1965).

:func:`line_frequencies` measures the lines (Blackman–Harris window, 4× zero padding, parabolic interpolation of
the log-magnitude: ~1e-9 cycles/step at 16 384 samples), :func:`torus_generators` reduces them to a smallest
set of generators, and :func:`section_curve_spread` checks that the section points lie on a closed curve.
docs/classification.md §4 gives the tolerances.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import lcm

import numpy as np
from scipy import fft
from scipy.signal import windows

from meanfield.analysis._input import as_series
from meanfield.errors import AnalysisError


def line_frequencies(x: np.ndarray, n_lines: int = 8, min_relative: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies (cycles per step, in [0, ½]) and amplitudes of the strongest spectral lines, strongest first.

    The mean-removed series is multiplied by a 4-term Blackman–Harris window (side lobes 92 dB down, so a
    strong line does not create weak false ones), zero-padded to 4 n and transformed; every local maximum of
    the magnitude at least ``min_relative`` of the largest is a line, its frequency refined by a parabola
    through the log-magnitude at the maximum and its two neighbours.

    Parameters
    ----------
    x : array_like, 1-D
        Finite series, at least 16 samples.
    n_lines : int
        Most lines returned.
    min_relative : float
        Weakest line kept, relative to the strongest (amplitude).

    Returns
    -------
    freqs, amplitudes : numpy.ndarray
        Possibly empty (constant series).
    """
    arr = as_series(x, name="x", min_length=16)
    if int(n_lines) < 1:
        raise AnalysisError(f"n_lines: {n_lines!r}; must be a positive integer")
    n = arr.size
    w = windows.blackmanharris(n, sym=False)
    size = 4 * n
    mag = np.abs(fft.rfft((arr - np.dot(w, arr) / w.sum()) * w, size))
    if not np.any(mag > 0):
        return np.zeros(0), np.zeros(0)
    peaks = np.flatnonzero((mag[1:-1] > mag[:-2]) & (mag[1:-1] >= mag[2:])) + 1
    peaks = peaks[mag[peaks] >= min_relative * mag.max()]
    peaks = peaks[np.argsort(mag[peaks], kind="stable")[::-1][: int(n_lines)]]
    log = np.log(mag[np.concatenate([peaks - 1, peaks, peaks + 1])].reshape(3, -1))
    curvature = log[0] - 2.0 * log[1] + log[2]
    shift = np.divide(0.5 * (log[0] - log[2]), curvature, out=np.zeros(peaks.size), where=curvature < 0)
    return np.clip((peaks + shift) / size, 0.0, 0.5), mag[peaks] * (2.0 / w.sum())


def fold(f):
    """Frequencies mod 1 folded to [0, ½] (a real observable cannot tell ω from −ω)."""
    f = np.mod(f, 1.0)
    return np.minimum(f, 1.0 - f)


@cache
def _orders(dim: int, max_order: int) -> np.ndarray:
    """All integer vectors in [−max_order, max_order]^dim, one per row."""
    axis = np.arange(-max_order, max_order + 1, dtype=np.float64)
    return np.stack(np.meshgrid(*([axis] * dim), indexing="ij"), axis=-1).reshape(-1, dim)


def _explained(f: float, basis: list[float], max_order: int, tol: float) -> bool:
    """Whether ``f`` is an integer combination of ``basis`` with coefficients in [−m, m], m = 4·max_order for
    one basis frequency, 2·max_order for two and max_order for more (at most ~1e5 combinations)."""
    if not basis:
        return False
    order = max_order * {1: 4, 2: 2}.get(len(basis), 1)
    return bool(np.min(np.abs(fold(_orders(len(basis), order) @ np.asarray(basis)) - f)) <= tol)


def torus_generators(freqs: np.ndarray, forcing_period: int = 1, max_order: int = 8, tol: float = 1e-6,
                     max_dim: int = 3) -> list[float]:
    """A smallest set of frequencies whose integer combinations (with the forcing frequency 1/q) give every
    line, taking the lines strongest first.

    A line that is a combination ``Σ n_i g_i + m/q`` (|n_i|, |m| ≤ ``max_order``, or 4× / 2× that for one
    or two basis frequencies, within ``tol``) of the generators so far is explained; otherwise it becomes a generator,
    and then the weakest older generator that the others explain is dropped (a harmonic met before its fundamental, or a
    combination line taken before the second frequency), so the strongest lines stay generators. Stops once more than
    ``max_dim`` generators are needed (the caller then rejects the torus). With ``max_order`` = 8 a single generator
    explains harmonics up to 32 (the circle map at K = 0.9 shows order 9 among its eight strongest lines); an
    accidental match of a line within ``tol`` has probability ≈ (combinations) · 4 tol ≤ 2 %.

    Returns
    -------
    list of float
        Generators, each folded to [0, 1/(2q)] (its representative modulo the forcing frequency).
    """
    q = int(forcing_period)
    if q < 1:
        raise AnalysisError(f"forcing_period: {forcing_period!r}; must be a positive integer")
    known = [1.0 / q] if q > 1 else []
    gens: list[float] = []
    for f in np.asarray(freqs, dtype=np.float64).tolist():
        if f <= tol or _explained(f, known + gens, max_order, tol):
            continue
        gens.append(f)
        for g in gens[-2::-1]:
            if _explained(g, known + [h for h in gens if h != g], max_order, tol):
                gens.remove(g)
                break
        if len(gens) > max_dim:
            break
    period = 1.0 / q
    return [float(min(g % period, period - g % period)) for g in gens]


def section_curve_spread(y: np.ndarray, generators: list[float], forcing_period: int = 1, points_per_cell: int = 8,
                         max_points: int = 32_768) -> float:
    """How far the orbit is from a continuous function of its torus phases: the 90th percentile, over cells
    of the phase torus, of the spread of the section points in a cell, relative to their extent.

    The section keeps the samples at the forcing phase of the last sample (every q-th: the stroboscopic map,
    whose torus has one dimension less). If ``x_t = h(θ_0 + t ω)`` with h continuous, points whose phases
    ``frac(t ω_k)`` share a cell of side 1/b differ by at most ≈ Σ_k |∂h/∂θ_k| / b: for one generator the
    points lie on a closed curve traversed in phase order, for d generators the sections at fixed phases
    2 … d do. Cells are ``b = (N / points_per_cell)^(1/d)`` per phase, so a cell holds about
    ``points_per_cell`` points; cells never visited (a near-rational rotation covers only arcs of its curve
    within one window) do not count. A wrong frequency or a chaotic orbit scatters every cell over the whole
    extent (spread ≈ 1). Uses the last ``max_points`` section points (the phase error grows like t times the
    frequency error, ~1e-9 per step).

    Parameters
    ----------
    y : array_like, shape (time,) or (time, features)
        Finite series (the classification window).
    generators : list of float
        Frequencies from :func:`torus_generators` (at least one).
    forcing_period : int
        q; 1 for an autonomous map.

    Returns
    -------
    float
        NaN when fewer than ``4 · points_per_cell`` section points remain or no cell holds two.
    """
    arr = as_series(y, name="y", min_length=2, ndim=(1, 2))
    pts = arr.reshape(arr.shape[0], -1)
    if not generators:
        raise AnalysisError("generators: at least one frequency needed")
    q, dim = int(forcing_period), len(generators)
    t = np.arange(pts.shape[0] - 1, -1, -q)[::-1][-int(max_points):]
    if t.size < 4 * points_per_cell:
        return float("nan")
    pts = pts[t]
    extent = float(np.max(np.ptp(pts, axis=0)))
    if extent == 0:
        return 0.0
    per_axis = max(2, int((t.size / points_per_cell) ** (1.0 / dim)))
    phases = np.mod(np.outer(t.astype(np.float64), np.asarray(generators, dtype=np.float64)), 1.0)
    cells = np.ravel_multi_index(tuple(np.minimum((phases * per_axis).astype(np.int64), per_axis - 1).T),
                                 (per_axis,) * dim)
    order = np.argsort(cells, kind="stable")
    cells, pts = cells[order], pts[order]
    starts = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]])
    counts = np.diff(np.r_[starts, cells.size])
    spread = np.max(np.maximum.reduceat(pts, starts, axis=0) - np.minimum.reduceat(pts, starts, axis=0), axis=1)
    spread = spread[counts >= 2]
    return float(np.quantile(spread, 0.9) / extent) if spread.size else float("nan")


def rational_period(generators: list[float], forcing_period: int = 1, max_denominator: int = 1000,
                    tol: float = 1e-9) -> int | None:
    """The period of a cycle whose lines these are, when every generator is within ``tol`` of a fraction
    m/Q with Q ≤ ``max_denominator`` (lcm of the Q and the forcing period), else None.

    A mode-locked orbit has a rational rotation number; when it has not yet reached its rounding floor
    (still converging, or too slowly to tell), its spectrum is a torus spectrum with rational generators.
    ``tol`` = 1e-9 is the precision of :func:`line_frequencies` on 16 384 samples; an irrational generator
    falls within it of a fraction with Q ≤ 1000 with probability ≈ Q² · tol ≈ 1e-3.
    """
    if not generators:
        return None
    period = int(forcing_period)
    for g in generators:
        frac = Fraction(float(g)).limit_denominator(int(max_denominator))
        if abs(float(frac) - g) > tol:
            return None
        period = lcm(period, frac.denominator)
    return period
