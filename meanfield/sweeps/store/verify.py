"""Checksums of a sweep file (docs/storage.md §8): per point and per dataset a crc32 of the point's stored
bytes, in the dataset ``checksum`` over the grid axes and ``checked`` (the names of the datasets it covers),
written with the point's data by :func:`~meanfield.sweeps.store.points.write_points`; a crc32 of every
coordinate, and of every attribute fixed at creation (``@name``: ``run_json``, ``run_key``, ``model`` ...), in the
attribute ``coordinate_crc32``, written when the file is created. :func:`damage` recomputes
them: a point marked done whose bytes differ was damaged after it was written."""
from __future__ import annotations

import json
import os
import zlib

import numpy as np

from ...errors import StoreError
from .files import reading

#: The per-point checksum dataset and the dimension naming the datasets it covers.
CHECKSUM, CHECKED = "checksum", "checked"
#: Attribute holding the crc32 of every coordinate (JSON: name -> crc32).
COORDINATE_CRC = "coordinate_crc32"
#: Bytes of one dataset read at a time when verifying.
BLOCK_BYTES = 1 << 26


def value_crc(values) -> int:
    """crc32 of a coordinate's values (strings by their UTF-8 text, one per line)."""
    values = np.asarray(values)
    if values.dtype.kind in "OSU":
        text = "\n".join(v.decode() if isinstance(v, bytes) else str(v) for v in values.ravel())
        return zlib.crc32(text.encode())
    return zlib.crc32(np.ascontiguousarray(values).tobytes())


def row_crcs(rows: np.ndarray) -> np.ndarray:
    """crc32 of each row of ``rows`` (a point per row: axis 0), as uint32."""
    rows = np.ascontiguousarray(rows).reshape(len(rows), -1)
    return np.fromiter((zlib.crc32(row) for row in rows), dtype=np.uint32, count=len(rows))


def stored_columns(layout: dict, names, arrays: dict, order) -> dict:
    """The per-point ``arrays`` of the datasets ``names`` as a sweep file stores them (rows in ``order``, the
    ``layout``'s dtypes) and, under :data:`CHECKSUM`, their crc32 per point and dataset."""
    columns = {name: np.asarray(arrays[name])[order].astype(layout[name][1], copy=False) for name in names}
    columns[CHECKSUM] = np.stack([row_crcs(columns[name]) for name in names], axis=1)
    return columns


def _read(dataset, lo: int, hi: int, grid: int) -> tuple:
    """Entries ``lo:hi`` of ``dataset`` along axis 0, and which of their points (the first ``grid`` axes) could
    not be read: a compressed chunk whose bytes were damaged fails to inflate (its entries are left at the
    fill value)."""
    try:
        return dataset[lo:hi], np.zeros((hi - lo,) + dataset.shape[1:grid], dtype=bool)
    except OSError:
        if dataset.chunks is None:
            raise
    block = np.full((hi - lo,) + dataset.shape[1:], dataset.fillvalue, dtype=dataset.dtype)
    unreadable = np.zeros(block.shape[:grid], dtype=bool)
    for chunk in dataset.iter_chunks((slice(lo, hi),) + tuple(slice(None) for _ in dataset.shape[1:])):
        local = (slice(chunk[0].start - lo, chunk[0].stop - lo),) + chunk[1:]
        try:
            block[local] = dataset[chunk]
        except OSError:
            unreadable[local[:grid]] = True
    return block, unreadable


def _group_damage(group, prefix: str) -> list:
    """(name, flat indices) of every dataset of a sweep file or refinement group whose done points fail."""
    if CHECKSUM not in group:
        return []                                        # written before checksums existed: nothing to check
    done = group["done"][...].reshape(-1) != 0
    grid = group["done"].ndim
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in group[CHECKED][...]]
    stored = group[CHECKSUM][...].reshape(done.size, len(names))
    out = []
    for k, name in enumerate(names):
        dataset = group[name]
        per_lead = int(np.prod(dataset.shape[1:grid], dtype=np.int64))
        row_bytes = max(1, dataset.nbytes // max(1, dataset.shape[0]))
        step = max(1, BLOCK_BYTES // row_bytes)
        bad = []
        for lo in range(0, dataset.shape[0], step):
            block, unreadable = _read(dataset, lo, min(lo + step, dataset.shape[0]), grid)
            block = block.reshape((-1,) + block.shape[grid:])
            unreadable = unreadable.reshape(-1)
            first = lo * per_lead
            rows = np.flatnonzero(done[first:first + len(block)])
            if rows.size:
                wrong = unreadable[rows] | (row_crcs(block[rows]) != stored[first + rows, k])
                bad.extend(first + rows[wrong])
        if bad:
            out.append((prefix + name, np.asarray(bad, dtype=np.int64)))
    return out


def damage(f) -> list:
    """What fails its checksums in an open sweep file: (name, flat indices of the damaged done points) per
    dataset of the grid or of a refinement round (``refine/round_NN/name``), and (name, None) per coordinate."""
    out = []
    crcs = json.loads(f.attrs[COORDINATE_CRC]) if COORDINATE_CRC in f.attrs else {}
    for name, crc in crcs.items():
        if name.startswith("@"):                         # an attribute fixed at creation
            value = f.attrs.get(name[1:])
            if value is None or value_crc(str(value.decode() if isinstance(value, bytes) else value)) != crc:
                out.append((name, None))
        elif name not in f or value_crc(f[name][...]) != crc:
            out.append((name, None))
    out.extend(_group_damage(f, ""))
    if "refine" in f:
        for name in sorted(f["refine"]):
            out.extend(_group_damage(f["refine"][name], f"refine/{name}/"))
    return out


def describe(path: str, found: list) -> str:
    """One line on the first damage :func:`~meanfield.sweeps.store.verify.damage` found."""
    name, bad = found[0]
    what = (f"attribute {name[1:]!r} fails its checksum" if bad is None and name.startswith("@") else
            f"coordinate {name!r} fails its checksum" if bad is None else
            f"dataset {name!r} fails its checksums at {len(bad)} point(s) (flat index {int(bad[0])} first)")
    more = f", and {len(found) - 1} more dataset(s)" if len(found) > 1 else ""
    return f"{path!r} is damaged: {what}{more}"


def verify_file(path) -> dict:
    """Check every checksum of a sweep file (:func:`~meanfield.sweeps.store.verify.damage`); StoreError naming
    the first damaged dataset, or when the file is not readable. Returns ``{"points": done points checked,
    "datasets": names checked}``."""
    path = os.fspath(path)
    try:
        with reading(path) as f:
            found = damage(f)
            checked = [n.decode() if isinstance(n, bytes) else str(n) for n in f[CHECKED][...]] if CHECKED in f else []
            points = int((f["done"][...] != 0).sum()) if "done" in f else 0
    except StoreError:
        raise
    except (OSError, KeyError, ValueError, RuntimeError, TypeError) as exc:   # metadata damaged past the open
        raise StoreError(f"{path!r} is damaged: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                         ) from None
    if found:
        raise StoreError(describe(path, found))
    return {"points": points, "datasets": checked}


__all__ = ["CHECKED", "CHECKSUM", "COORDINATE_CRC", "damage", "describe", "row_crcs", "stored_columns", "value_crc",
           "verify_file"]
