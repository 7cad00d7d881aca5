"""The journal of a sweep file (docs/storage.md §8): ``OUT.h5.journal``, an append-only file beside the result
file holding every finished chunk of points a second time, each record framed and checksummed, written and
fsynced before the chunk is written into the HDF5 file and counted done. A result file that is damaged
(truncated, emptied, its metadata or data overwritten) is rebuilt from it: a fresh file, the valid records
replayed in journal order through :func:`~meanfield.sweeps.store.points.write_points`; a record whose checksum
fails is dropped (its points are computed again).

Format: a sequence of frames ``MAGIC | kind (1 byte) | payload length (uint64 LE) | crc32 (uint32 LE) | payload``,
the crc32 over the kind byte and the payload. The first frame (kind :data:`HEADER`) holds JSON: the format,
the run's ``run_key``, ``run_json`` and ``run_toml``. Every other frame (kind :data:`DEFLATED`) holds one chunk
as a deflated ``.npz`` (numpy only, read with ``allow_pickle=False``; kind :data:`CHUNK`, the same uncompressed,
in journals written before compression): ``index`` (the flat point indices) and every per-point array
:func:`~meanfield.sweeps.store.points.write_points` stores; or (kind :data:`INDEX`, a compressed file's task
stored as whole chunks, :mod:`.chunk_journal`, a deflated ``.npz`` too) where the task's compressed chunks lie
in the file, with their crc32; or (kind :data:`BASINS`) one
block of rows of a basin map, ``first`` (its first row) and ``id`` (rows, columns) (docs/storage.md §9). A
reader that meets a bad frame looks for the next ``MAGIC``, so one damaged record (or a torn last one) costs only
itself.
"""
from __future__ import annotations

import io
import json
import os
import struct
import zlib
from dataclasses import dataclass, field

import numpy as np

from ...errors import StoreError

#: Suffix of a sweep file's journal: ``OUT.h5`` -> ``OUT.h5.journal`` (docs/storage.md §8).
JOURNAL_SUFFIX = ".journal"
MAGIC = b"MFJ\x01"
HEADER, CHUNK, BASINS, DEFLATED, INDEX = 0, 1, 2, 3, 4
#: The arrays of an index record (:mod:`.chunk_journal`).
INDEX_ARRAYS = ("index", "corner", "position", "size", "crc")
#: The deflate level of data records (the fastest, as for the file's chunks, :mod:`.chunks`).
LEVEL = 1
FRAME = struct.Struct("<4sBQI")
FORMAT = 1


def journal_path(path) -> str:
    """The journal of the sweep file ``path``."""
    return os.fspath(path) + JOURNAL_SUFFIX


def _frame(kind: int, payload: bytes) -> bytes:
    crc = zlib.crc32(payload, zlib.crc32(bytes([kind])))
    return FRAME.pack(MAGIC, kind, len(payload), crc) + payload


def _pack(indices, arrays: dict, names) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, index=np.asarray(indices, dtype=np.int64), **{name: np.asarray(arrays[name]) for name in names})
    return buffer.getvalue()


def _unpack(payload: bytes, names) -> tuple | None:
    """(indices, arrays) of a chunk record, None when it lacks an array of ``names`` or is not a readable .npz."""
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as data:
            if not all(name in data.files for name in ("index", *names)):
                return None
            return data["index"], {name: data[name] for name in names}
    except (ValueError, OSError, EOFError, zlib.error, KeyError):
        return None


@dataclass
class Contents:
    """What a journal holds: its header (None when missing or damaged), the payloads of its valid chunk
    records in order, and how many frames were dropped (a checksum that fails, a torn last record)."""

    header: dict | None = None
    chunks: list = field(default_factory=list)
    dropped: int = 0
    basins: list = field(default_factory=list)
    indexes: list = field(default_factory=list)

    def matches(self, run) -> bool:
        return self.header is not None and self.header.get("run_key") == run.result_key()

    def records(self, names):
        """(indices, arrays) of every valid chunk record, in journal order; a record that does not unpack
        (another layout) counts as dropped."""
        for payload in self.chunks:
            record = _unpack(payload, names)
            if record is None:
                self.dropped += 1
                continue
            yield record

    def index_records(self):
        """The arrays (:data:`INDEX_ARRAYS`) of every valid index record, in journal order; one that does not
        unpack counts as dropped."""
        for payload in self.indexes:
            record = _unpack(payload, INDEX_ARRAYS[1:])
            if record is None:
                self.dropped += 1
                continue
            yield {"index": record[0], **record[1]}

    def basin_rows(self):
        """(first row, ids) of every valid basin-map record, in journal order; one that does not unpack counts
        as dropped."""
        for payload in self.basins:
            record = _unpack(payload, ("first", "id"))
            if record is None:
                self.dropped += 1
                continue
            yield int(record[1]["first"]), record[1]["id"]


def read_journal(path) -> Contents:
    """The valid frames of the journal at ``path`` (an absent or unreadable journal holds nothing)."""
    out = Contents()
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return out
    pos, size, gap = 0, len(data), False
    while pos < size:
        start = data.find(MAGIC, pos)
        kind, end, payload = _frame_at(data, start) if start >= 0 else (None, size, None)
        if (payload is None or start > pos) and not gap:     # a stretch of bytes that is no valid frame
            out.dropped += 1
        gap = True
        if payload is None:
            if start < 0:
                break
            pos = start + 1
            continue
        gap = False
        if kind == HEADER and start == 0:
            try:
                out.header = json.loads(payload.decode())
            except (UnicodeDecodeError, json.JSONDecodeError):
                out.dropped += 1
        elif kind == CHUNK:
            out.chunks.append(payload)
        elif kind in (DEFLATED, INDEX):
            try:
                (out.chunks if kind == DEFLATED else out.indexes).append(zlib.decompress(payload))
            except zlib.error:
                out.dropped += 1
        elif kind == BASINS:
            out.basins.append(payload)
        pos = end
    return out


def _frame_at(data: bytes, start: int) -> tuple:
    """(kind, end, payload) of the frame at ``start``; payload None when it is cut short or fails its crc32."""
    if start + FRAME.size > len(data):
        return None, start, None
    _, kind, length, crc = FRAME.unpack_from(data, start)
    end = start + FRAME.size + length
    if end > len(data):
        return kind, end, None
    payload = data[start + FRAME.size:end]
    if zlib.crc32(payload, zlib.crc32(bytes([kind]))) != crc:
        return kind, end, None
    return kind, end, payload


def _fsync_directory(path: str) -> None:
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class Journal:
    """The journal of one sweep session, open for appending (:meth:`start`); :meth:`append` one record per
    finished chunk before it is written into the HDF5 file."""

    def __init__(self, path: str, fd: int, names: list):
        self.path, self.fd, self.names = path, fd, names

    @classmethod
    def start(cls, path, run, names) -> Journal:
        """The journal at ``path`` open for appending when it belongs to ``run`` (same ``run_key``); otherwise
        (absent, another run, a damaged header) it is started anew with a header frame. Fsynced, directory too."""
        path = os.fspath(path)
        keep = read_journal(path).matches(run) if os.path.exists(path) else False
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (0 if keep else os.O_TRUNC)
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            raise StoreError(f"journal {path!r} cannot be created: {exc.strerror}") from None
        journal = cls(path, fd, list(names))
        if not keep:
            header = {"format": FORMAT, "run_key": run.result_key(), "run_json": run.to_json(), "run_toml": run.source}
            journal._write(_frame(HEADER, json.dumps(header).encode()))
            _fsync_directory(path)
        return journal

    def _write(self, frame: bytes) -> None:
        try:
            view = memoryview(frame)
            while view:
                view = view[os.write(self.fd, view):]
            os.fsync(self.fd)
        except OSError as exc:
            raise StoreError(f"journal {self.path!r} cannot be written: {exc.strerror}") from None

    def append(self, indices, arrays: dict) -> None:
        """Write and fsync one record: the chunk's flat ``indices`` and its per-point arrays."""
        self._write(_frame(DEFLATED, zlib.compress(_pack(indices, arrays, self.names), LEVEL)))

    def append_index(self, arrays: dict) -> None:
        """Write and fsync one index record (:data:`INDEX_ARRAYS`, :mod:`.chunk_journal`)."""
        self._write(_frame(INDEX, zlib.compress(_pack(arrays["index"], arrays, INDEX_ARRAYS[1:]), LEVEL)))

    def append_rows(self, first: int, ids) -> None:
        """Write and fsync one block of rows of a basin map: its first row and its ids."""
        self._write(_frame(BASINS, _pack([], {"first": np.int64(first), "id": ids}, ("first", "id"))))

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


__all__ = ["JOURNAL_SUFFIX", "Contents", "Journal", "journal_path", "read_journal"]
