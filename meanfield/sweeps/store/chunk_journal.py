"""Index records of a compressed sweep file's journal (docs/storage.md §8): where a task's compressed chunks lie
in the file, and their crc32, instead of a second copy of the data.

HDF5 writes a chunk's bytes once, where it allocates them, and a sweep never rewrites a chunk that is done: a
file whose metadata is damaged, or that is cut short, still holds the bytes of its earlier chunks. A rebuild
(:func:`copy_record`) reads them from the damaged file by their offsets and stores every chunk whose crc32 holds
into the new file as it is; a task with a chunk lost or changed is computed again. The new file's chunks lie
elsewhere, so after a rebuild its journal is written anew (:func:`reindex`).
"""
from __future__ import annotations

import os
import zlib

import numpy as np

from .chunks import block_ids, grid_chunk
from .journal import Journal
from .verify import CHECKSUM


def _datasets(names) -> list:
    """The datasets an index record covers: the journal's ``names``, then the checksums."""
    return [*names, CHECKSUM]


def _offset(group, run, name: str, corner) -> tuple:
    return tuple(int(c) for c in corner) + (0,) * (group[name].ndim - len(run.shape))


def index_record(group, run, indices, corners, names) -> dict:
    """The index record of a task whose chunks (at the grid ``corners``) were just stored in ``group``."""
    datasets = _datasets(names)
    shape = (len(datasets), len(corners))
    position, size, crc = np.zeros(shape, np.uint64), np.zeros(shape, np.uint64), np.zeros(shape, np.uint32)
    for d, name in enumerate(datasets):
        dataset = group[name].id
        for k, corner in enumerate(corners):
            offset = _offset(group, run, name, corner)
            info = dataset.get_chunk_info_by_coord(offset)
            position[d, k], size[d, k] = info.byte_offset, info.size
            crc[d, k] = zlib.crc32(dataset.read_direct_chunk(offset)[1])
    return {"index": np.asarray(indices, dtype=np.int64), "corner": np.asarray(corners, dtype=np.int64),
            "position": position, "size": size, "crc": crc}


def copy_record(source, group, run, names, record) -> bool:
    """Store the chunks of an index ``record`` read from ``source`` (the damaged file, open in binary mode) into
    ``group`` as they are, when every one of them is there with its crc32; False (nothing stored) otherwise."""
    pieces = _intact_bytes(source, names, record)
    if pieces is None:
        return False
    datasets, chunks = _datasets(names), len(record["corner"])
    for n, data in enumerate(pieces):                      # dataset by dataset, chunk by chunk
        name = datasets[n // chunks]
        group[name].id.write_direct_chunk(_offset(group, run, name, record["corner"][n % chunks]), data)
    return True


def recoverable(contents, run, names, source_path) -> set:
    """The points of the index records of ``contents`` whose chunks ``source_path`` still holds intact."""
    points = set()
    try:
        source = open(source_path, "rb")
    except OSError:
        return points
    with source:
        for record in contents.index_records():
            if _intact_bytes(source, names, record) is not None:
                points.update(int(i) for i in record["index"])
    return points


def _intact_bytes(source, names, record) -> list | None:
    """The stored bytes of every chunk of ``record`` (dataset by dataset, chunk by chunk) read from ``source``,
    when each is there with its crc32; None otherwise."""
    if record["crc"].shape != (len(_datasets(names)), len(record["corner"])):
        return None
    out = []
    for position, size, crc in zip(record["position"].ravel(), record["size"].ravel(), record["crc"].ravel()):
        source.seek(int(position))
        data = source.read(int(size))
        if len(data) != int(size) or zlib.crc32(data) != int(crc):
            return None
        out.append(data)
    return out


def reindex(group, run, names, path) -> None:
    """Write a new journal for the file ``group`` at ``path``: an index record per grid chunk whose points are
    all done, a data record for the done points of other chunks (read back from the file)."""
    if os.path.exists(path):
        os.remove(path)
    journal = Journal.start(path, run, names)
    try:
        done = np.flatnonzero(group["done"][...].reshape(-1))
        blocks = block_ids(run.shape, run.chunk, done)
        size = np.asarray(grid_chunk(run.shape, run.chunk))
        partial = []
        for block in np.unique(blocks):
            indices = done[blocks == block]
            corner = np.stack(np.unravel_index(indices[:1], run.shape), axis=1)[0] // size * size
            if len(indices) == int(np.prod(np.minimum(corner + size, run.shape) - corner)):
                journal.append_index(index_record(group, run, indices, [corner], names))
            else:
                partial.append(indices)
        if partial:
            indices = np.concatenate(partial)
            grid = len(run.shape)
            journal.append(indices, {name: group[name][...].reshape((-1,) + group[name].shape[grid:])[indices]
                                     for name in names})
    finally:
        journal.close()


__all__ = ["copy_record", "index_record", "recoverable", "reindex"]
