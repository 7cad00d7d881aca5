"""Chunked, compressed per-point datasets of a large sweep file (docs/storage.md §3): which files are
compressed, the chunk shape every per-point dataset shares, and the chunks a worker compresses for the client
to store as they are.

A sweep's tasks hold whole chunks of the grid (:func:`grid_chunk`, used by the plan), so a task's result is
a set of complete HDF5 chunks: the worker shuffles and deflates them (HDF5's ``shuffle`` and ``gzip``
filters, which h5py, h5netcdf and xarray read without extra installs) and the client writes the bytes with
``write_direct_chunk``, with no compression or copying of its own. A file under :data:`COMPRESS_FROM_BYTES`
uncompressed stays contiguous: there compression saves little and costs a chunk index per dataset.
"""
from __future__ import annotations

import zlib

import numpy as np

from .verify import CHECKSUM, stored_columns

#: Files whose per-point datasets take at least this many bytes uncompressed are chunked and compressed.
COMPRESS_FROM_BYTES = 8 << 20
#: The deflate level: 1 is the fastest; on these arrays (mostly fill values and small counts) higher levels
#: shrink the file by a few per cent at several times the cost (bench/RESULTS.md).
GZIP_LEVEL = 1


def grid_chunk(shape: tuple, chunk: int) -> tuple:
    """The chunk of a per-point dataset along the grid axes of ``shape``: ``chunk`` points or fewer, whole
    rows of the last axis where ``chunk`` holds one (then as many rows as fit), else a piece of one row."""
    *lead, last = shape
    if chunk < last or not lead:
        return (1,) * len(lead) + (min(chunk, last),)
    return (1,) * (len(lead) - 1) + (min(lead[-1], chunk // last), last)


def block_ids(shape: tuple, chunk: int, indices) -> np.ndarray:
    """The grid chunk (:func:`grid_chunk`, numbered in C order) that holds each flat point index."""
    size = np.asarray(grid_chunk(shape, chunk))
    coords = np.stack(np.unravel_index(np.asarray(indices, dtype=np.int64), shape))
    blocks = -(-np.asarray(shape) // size)
    return np.ravel_multi_index(tuple(coords // size[:, None]), tuple(blocks))


def compressed(raw_nbytes: int) -> bool:
    """Whether a sweep file of ``raw_nbytes`` uncompressed is chunked and compressed."""
    return raw_nbytes >= COMPRESS_FROM_BYTES


def storage(run, extra: tuple, raw_nbytes: int) -> dict:
    """Keyword arguments of ``h5py.Group.create_dataset`` for a per-point dataset of ``run`` with trailing
    dimensions ``extra`` in a file of ``raw_nbytes`` uncompressed: chunked and compressed from
    :data:`COMPRESS_FROM_BYTES` on (unless a trailing dimension is empty), else contiguous (no arguments)."""
    if not compressed(raw_nbytes) or 0 in extra:
        return {}
    return {"chunks": grid_chunk(run.shape, run.chunk) + tuple(extra), "compression": "gzip",
            "compression_opts": GZIP_LEVEL, "shuffle": True}


def direct_writes(group, run, names) -> bool:
    """Whether the datasets ``names`` of ``group`` are stored as this version writes them (:func:`storage`),
    so that a worker's compressed chunks fit them; a file written before compression existed is not."""
    for name in names:
        dataset = group[name]
        wanted = grid_chunk(run.shape, run.chunk) + dataset.shape[len(run.shape):]
        if dataset.chunks != wanted or dataset.compression != "gzip" or not dataset.shuffle:
            return False
    return True


def _deflate(block: np.ndarray) -> bytes:
    """The bytes HDF5 stores for a chunk ``block``: byte-shuffled (the ``shuffle`` filter), then deflated."""
    raw = np.ascontiguousarray(block).view(np.uint8).reshape(block.size, block.dtype.itemsize)
    return zlib.compress(np.ascontiguousarray(raw.T).tobytes(), GZIP_LEVEL)


def pack(run, layout: dict, names, arrays: dict) -> dict | None:
    """The compressed chunks of a task's result (``arrays``, a point per row in the order of
    ``arrays["index"]``) for every dataset of ``names`` and the checksums (docs/storage.md §8):
    ``{name: [(chunk offset, bytes)]}``; None when the points are not whole chunks (a resumed file's remains)."""
    indices = np.asarray(arrays["index"], dtype=np.int64)
    order = np.argsort(indices, kind="stable")
    indices = indices[order]
    size = grid_chunk(run.shape, run.chunk)
    blocks = block_ids(run.shape, run.chunk, indices)
    firsts = np.flatnonzero(np.r_[True, blocks[1:] != blocks[:-1]])
    coords = np.stack(np.unravel_index(indices, run.shape), axis=1)
    corners = coords[firsts] // size * size
    ends = np.minimum(corners + size, run.shape)
    counts = np.diff(np.r_[firsts, len(indices)])
    if not np.array_equal(counts, np.prod(ends - corners, axis=1)):
        return None
    local = coords - np.repeat(corners, counts, axis=0)
    columns = stored_columns(layout, names, arrays, order)
    out = {}
    for name, values in columns.items():
        fill = 0 if name == CHECKSUM else layout[name][2]
        pieces = []
        for k, first in enumerate(firsts):
            block = np.full(size + values.shape[1:], fill, dtype=values.dtype)
            rows = slice(first, first + counts[k])
            block[tuple(local[rows].T)] = values[rows]
            pieces.append((tuple(int(c) for c in corners[k]) + (0,) * (values.ndim - 1), _deflate(block)))
        out[name] = pieces
    return out


def write_chunks(group, packed: dict) -> list:
    """Store the compressed chunks of :func:`pack` as they are; returns their corners on the grid."""
    grid = group["done"].ndim
    for name, pieces in packed.items():
        dataset = group[name].id
        for offset, data in pieces:
            dataset.write_direct_chunk(offset, data)
    return [offset[:grid] for offset, _ in next(iter(packed.values()))]


__all__ = ["COMPRESS_FROM_BYTES", "GZIP_LEVEL", "block_ids", "compressed", "direct_writes", "grid_chunk", "pack",
           "storage", "write_chunks"]
