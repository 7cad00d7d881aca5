"""On-device reductions of recorded trajectories, so a big GPU sweep never copies raw trajectories back: the
orbit histogram over fixed y-bins, the Poincaré band points (capped, with counts) and the distinct-value counts
at 5001 levels (docs/model.md §7.1), plus batched spectra and autocorrelations of recorded tails
(docs/model.md §7.2) with ``cupy.fft`` when the data is on the device.

The results equal :func:`meanfield.analysis.reductions.reduce_points` on the same data (same arrays, dtypes and
missing-value conventions): the kernel uses the quantisation of :mod:`meanfield.analysis.sections`
(``int(levels·(v/scale + 1)/2)``, truncation) with a bitmap of the codes 0..levels per point; a point with a
value outside that code range (|v| noticeably above ``scale``) is flagged and reduced on the host by
:func:`~meanfield.analysis.reductions.reduce_points` itself, so the answer is identical in every case.

:class:`ReducingBackend` plugs this into :func:`meanfield.simulation.simulate_batch` (``backend=`` accepts it).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..analysis.reductions import MISSING_COUNT, reduce_points
from ..model.layout import OBSERVABLES, Batch, BatchOutput
from .cuda import (
    THREADS_PER_BLOCK,
    check_dtype,
    cuda,
    cupy_module,
    device_zeros,
    host_results,
    require_cuda,
    run_batch_device,
    to_device,
    to_host,
)

_kernels = {}


class ReduceSettings(NamedTuple):
    """What the reduction kernel reads besides the records: the observable's index ``observable`` in the
    selection, the histogram's y range ``lo``..``hi`` with ``factor`` = bins / (hi - lo), the quantisation
    ``levels`` of values in [-``scale``, ``scale``], the band ``pairs`` (n_pairs, 2) and their tolerance ``tol``
    (:class:`meanfield.sweeps.config.tables.ReductionSpec`)."""

    observable: int
    lo: float
    hi: float
    factor: float
    levels: int
    scale: float
    pairs: np.ndarray
    tol: float


class Reductions(NamedTuple):
    """Per point (first axis): the orbit histogram (n, M, bins), distinct-value counts (n, M), the capped band
    values (n, n_pairs, cap), their counts and distinct counts (n, n_pairs); the keys of
    :func:`meanfield.analysis.reductions.reduce_points`."""

    hist: np.ndarray
    distinct: np.ndarray
    band_values: np.ndarray
    band_count: np.ndarray
    band_distinct: np.ndarray


def _reduce_kernel():
    """The reduction kernel, one thread per point (compiled on first use, after :func:`require_cuda`)."""
    if "reduce" in _kernels:
        return _kernels["reduce"]
    require_cuda()

    @cuda.jit(device=True)
    def mark(bitmap, i, v, scale, levels):
        """Set the bit of v's level code in ``bitmap[i]``; 1 if it was new, 0 if not, -1 if out of range."""
        x = levels * (v / scale + 1.0) / 2.0
        if not (x > -1.0 and x < levels + 1.0):
            return -1
        code = int(x)
        word = code // 32
        bit = np.uint32(1) << np.uint32(code % 32)
        if bitmap[i, word] & bit:
            return 0
        bitmap[i, word] = bitmap[i, word] | bit
        return 1

    @cuda.jit(device=True)
    def clear(bitmap, i):
        for word in range(bitmap.shape[1]):
            bitmap[i, word] = 0

    @cuda.jit
    def reduce(records, settings, bitmap, out, overflow):
        """Point i's :class:`Reductions` of observable ``settings.observable`` (:class:`ReduceSettings`);
        ``overflow[i]`` = 1 when a value falls outside the level codes."""
        s, lo, hi, factor, levels, scale, pairs, tol = settings
        hist, distinct, band_values, band_count, band_distinct = out
        i = cuda.grid(1)
        n_rows, n_feat, n_points = records.shape[0], records.shape[2], records.shape[3]
        if i >= n_points:
            return
        overflow[i] = 0
        for row in range(n_rows):
            for a in range(n_feat):
                if not math.isfinite(records[row, s, a, i]):
                    return  # the caller's fill values stand: zero counts, -1 distinct, NaN band values
        n_bins = hist.shape[2]
        for a in range(n_feat):
            clear(bitmap, i)
            count = 0
            for row in range(n_rows):
                v = np.float64(records[row, s, a, i])
                if v == hi:
                    hist[i, a, n_bins - 1] += 1
                else:
                    position = (v - lo) * factor
                    if position >= 0.0 and position < n_bins:
                        hist[i, a, int(math.floor(position))] += 1
                new = mark(bitmap, i, v, scale, levels)
                if new < 0:
                    overflow[i] = 1
                count += new
            distinct[i, a] = count
        cap = band_values.shape[2]
        for n in range(pairs.shape[0]):
            clear(bitmap, i)
            kept = 0
            count = 0
            for row in range(n_rows):
                if abs(np.float64(records[row, s, pairs[n, 1], i])) <= tol:
                    v = np.float64(records[row, s, pairs[n, 0], i])
                    if kept < cap:
                        band_values[i, n, kept] = v
                    kept += 1
                    new = mark(bitmap, i, v, scale, levels)
                    if new < 0:
                        overflow[i] = 1
                    count += new
            band_count[i, n] = kept
            band_distinct[i, n] = count

    _kernels["reduce"] = reduce
    return reduce


def reduce_points_device(records, spec, s: int = 0) -> dict:
    """:func:`meanfield.analysis.reductions.reduce_points` of observable ``s`` of device records (rows, n_sel, M, n)
    (the layout of :func:`meanfield.kernels.cuda.run_batch_device`); returns the same dict of host arrays.

    Only the reductions (and, for the rare points flagged out of quantisation range, their own records)
    cross to the host.
    """
    require_cuda()
    n_rows, _, n_feat, n = records.shape
    n_pairs = len(spec.band_pairs)
    lo, hi = (float(v) for v in spec.y_range)
    words = (int(spec.levels) + 1 + 31) // 32
    out = Reductions(device_zeros((n, n_feat, spec.bins), np.uint32),
                     to_device(np.full((n, n_feat), MISSING_COUNT, dtype=np.int32)),
                     to_device(np.full((n, n_pairs, spec.band_cap), np.nan)),
                     to_device(np.full((n, n_pairs), MISSING_COUNT, dtype=np.int64)),
                     to_device(np.full((n, n_pairs), MISSING_COUNT, dtype=np.int32)))
    overflow = device_zeros(n, np.int32)
    pairs = np.array(spec.band_pairs, dtype=np.int64).reshape(n_pairs, 2)
    if n and n_rows:
        blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        settings = ReduceSettings(int(s), lo, hi, spec.bins / (hi - lo), int(spec.levels), float(spec.scale),
                                  to_device(pairs), float(spec.band_tol))
        _reduce_kernel()[blocks, THREADS_PER_BLOCK](records, settings, device_zeros((n, words), np.uint32), out,
                                                    overflow)
        cuda.synchronize()
    host = {key: to_host(value) for key, value in out._asdict().items()}
    redo = np.flatnonzero(to_host(overflow))
    if redo.size:
        for key, value in reduce_points(point_series(records, s, redo), spec).items():
            host[key][redo] = value
    return host


def point_series(records, s: int, points) -> np.ndarray:
    """Host copy (len(points), rows, M) float64 of observable ``s`` of some points of device records
    (rows, n_sel, M, n), gathered on the device so only those points cross."""
    points = np.asarray(points, dtype=np.int64)
    n_rows, _, n_feat, _ = records.shape
    out = device_zeros((points.size, n_rows, n_feat), np.float64)
    if points.size and n_rows:
        if "gather" not in _kernels:
            @cuda.jit
            def gather(records, s, points, out):
                j, row = cuda.grid(2)
                if j < out.shape[0] and row < out.shape[1]:
                    for a in range(out.shape[2]):
                        out[j, row, a] = records[row, s, a, points[j]]
            _kernels["gather"] = gather
        grid = (points.size, (n_rows + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK)
        _kernels["gather"][grid, (1, THREADS_PER_BLOCK)](records, int(s), to_device(points), out)
        cuda.synchronize()
    return to_host(out)


class ReducingBackend:
    """A CUDA kernel, ``kernel(batch) -> output`` like :func:`meanfield.kernels.cuda.run_batch`, that reduces on
    the device, for
    :func:`meanfield.simulation.simulate_batch` ``backend=``.

    After each call, ``reduced`` holds :func:`meanfield.analysis.reductions.reduce_points` of ``observable`` (over all
    recorded rows) and the records returned to the host are only the LAST ``tail`` rows (0: none), so
    ``result.records[name]`` is (n, tail, M). Everything else is the CPU kernel's
    :class:`~meanfield.model.layout.BatchOutput`.
    """

    def __init__(self, spec, tail: int = 0, dtype="float64"):
        require_cuda()
        self.spec = spec
        self.tail = int(tail)
        self.dtype = check_dtype(dtype)
        self.reduced = None

    def __call__(self, batch: Batch) -> BatchOutput:
        out = run_batch_device(batch, self.dtype)
        code = OBSERVABLES.index(self.spec.observable)
        codes = list(np.asarray(batch.selection))
        if code not in codes:
            raise ValueError(f"reductions.observable = {self.spec.observable!r} must be recorded")
        records = out.records
        self.reduced = reduce_points_device(records, self.spec, codes.index(code))
        rows = records.shape[0]
        return host_results(out, records[rows - min(self.tail, rows):])


def _array_module(x):
    """(xp, x) with xp = cupy for device data when CuPy is usable, else numpy (device data copied back)."""
    cupy = cupy_module()
    if cupy is not None and not isinstance(x, np.ndarray):
        return cupy, cupy.asarray(x)
    return np, np.asarray(to_host(x), dtype=np.float64)


def power_spectra(tails):
    """Batched :func:`meanfield.analysis.spectra.power_spectrum_raw` along the last axis of ``tails``
    (docs/model.md §7.2): returns ``(freqs, power)`` with power = |rfft(x)|² / n, on the device with cupy.fft when
    ``tails`` is a device array and CuPy is usable."""
    xp, x = _array_module(tails)
    n = x.shape[-1]
    spec = xp.fft.rfft(x, axis=-1)
    return xp.fft.rfftfreq(n), (spec.real ** 2 + spec.imag ** 2) / n


def autocorrelations(tails, max_lag: int | None = None):
    """Batched :func:`meanfield.analysis.correlation.autocorrelation` along the last axis (mean removed,
    biased, zero-padded FFT, ρ(0) = 1); rows with zero variance give NaN instead of raising."""
    from scipy.fft import next_fast_len
    xp, x = _array_module(tails)
    n = x.shape[-1]
    top = n - 1 if max_lag is None else int(max_lag)
    size = next_fast_len(2 * n, real=True)
    spec = xp.fft.rfft(x - x.mean(axis=-1, keepdims=True), size, axis=-1)
    acov = xp.fft.irfft(spec.real ** 2 + spec.imag ** 2, size, axis=-1)[..., :top + 1]
    constant = (x.max(axis=-1) == x.min(axis=-1))[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return xp.where(constant, xp.nan, acov / acov[..., :1])


def device_tails(records, s: int, tail: int):
    """The last ``tail`` rows of observable ``s`` as a (n, M, tail) array kept on the device (CuPy) when
    possible — the input of :func:`power_spectra` / :func:`autocorrelations` without a host round trip."""
    xp = cupy_module() or np
    rows = records.shape[0]
    part = records[rows - min(tail, rows):, s]
    if xp is np:
        return np.ascontiguousarray(to_host(records)[rows - min(tail, rows):, s].transpose(2, 1, 0))
    arr = xp.asarray(part)
    return xp.ascontiguousarray(arr.transpose(2, 1, 0))


__all__ = ["reduce_points_device", "point_series", "ReducingBackend", "power_spectra", "autocorrelations",
           "device_tails"]
