"""Rebuilding a sweep file from its journal (docs/storage.md §8): :func:`replay` writes the journal's valid
records of points a file lacks into it, in journal order, through :func:`~meanfield.sweeps.store.points.write_points`
(so the checksums are those of an undamaged run); :func:`recover` rebuilds a damaged file without computing
(``meanfield recover FILE``)."""
from __future__ import annotations

import dataclasses
import json
import os

from ...errors import StoreError
from ..config.runfile import stored_run
from .chunk_journal import copy_record, reindex
from .chunks import direct_writes
from .files import PART_SUFFIX, append_provenance, reading
from .journal import journal_path, read_journal
from .lock import writer_lock
from .points import done_flags, mark_done, mark_finished, write_points
from .provenance import record
from .sweep import checked_names, create_sweep, sweep_layout
from .verify import damage


def replay(f, run, journal, source=None) -> dict:
    """Write every valid record of the journal at ``journal`` (a path) of ``run`` whose points ``f`` does not
    all hold into ``f``: a data record through :func:`write_points`, an index record by copying its chunks from
    the file at ``source`` when they are intact there (:func:`.chunk_journal.copy_record`); returns
    ``{"records", "points", "dropped"}`` (records replayed, points now done, damaged records dropped). A journal
    of another run is left alone (nothing replayed)."""
    contents = read_journal(journal) if os.path.exists(journal) else None
    out = {"records": 0, "points": 0, "dropped": 0}
    if contents is None or not contents.matches(run):
        return out
    done = done_flags(f)
    names = checked_names(sweep_layout(run))

    def wanted(indices) -> bool:
        if indices.size == 0 or indices.min() < 0 or indices.max() >= run.n_points:
            contents.dropped += 1
            return False
        return not done[indices].all()

    for indices, arrays in contents.records(names):
        if wanted(indices):
            write_points(f, run, indices, arrays)
            done[indices] = True
            out["records"] += 1
    indexed = [record for record in contents.index_records() if wanted(record["index"])]
    if indexed and source is not None and os.path.exists(source):
        with open(source, "rb") as fh:
            for record in indexed:
                if copy_record(fh, f, run, names, record):
                    f.file.flush()
                    mark_done(f, run, record["index"])
                    done[record["index"]] = True
                    out["records"] += 1
    out["points"] = int(done.sum())
    out["dropped"] = contents.dropped
    return out


#: Suffix of a journal written anew for a rebuilt compressed file, until it replaces the old one.
NEW_JOURNAL = ".new"


def reindex_compressed(f, run, journal) -> str | None:
    """For a rebuilt compressed file ``f``: its new journal, written beside the old one ``journal`` (path) with
    :data:`NEW_JOURNAL` appended, whose path is returned; the caller moves it over ``journal`` once ``f`` has
    replaced the damaged file (the old journal's index records point into that file). None for a contiguous
    file, whose journal holds the data and stays as it is."""
    names = checked_names(sweep_layout(run))
    if not direct_writes(f, run, names):
        return None
    reindex(f, run, names, journal + NEW_JOURNAL)
    return journal + NEW_JOURNAL


def _intact(path, run) -> bool:
    """Whether ``path`` is a readable sweep file of ``run`` whose checksums hold."""
    try:
        with reading(path) as f:
            return f.attrs.get("run_key") == run.result_key() and not damage(f)
    except (StoreError, OSError, KeyError, ValueError, RuntimeError, TypeError):
        return False


def recover(path) -> dict:
    """Rebuild the sweep file ``path`` from its journal without computing: a new file (``.part``, renamed over
    ``path``) with every valid record replayed. Returns ``{"points", "total", "dropped", "rebuilt"}``;
    ``rebuilt`` False when ``path`` was intact (nothing is written then). StoreError when there is no usable
    journal."""
    path = os.fspath(path)
    journal = journal_path(path)
    contents = read_journal(journal) if os.path.exists(journal) else None
    if contents is None or contents.header is None:
        raise StoreError(f"{path!r}: no readable journal {journal!r} to recover it from")
    header = contents.header
    run = dataclasses.replace(stored_run(json.loads(header["run_json"])), source=header.get("run_toml", ""))
    with writer_lock(path, "meanfield recover"):
        if os.path.exists(path) and _intact(path, run):
            with reading(path) as f:
                points = int(done_flags(f).sum())
            return {"points": points, "total": run.n_points, "dropped": contents.dropped, "rebuilt": False}
        part = path + PART_SUFFIX
        f = create_sweep(part, run, overwrite=True)
        try:
            append_provenance(f, record("recover"))
            result = replay(f, run, journal, source=path)
            if result["points"] == run.n_points:
                mark_finished(f)
            reindexed = reindex_compressed(f, run, journal)
        finally:
            f.close()
        os.replace(part, path)
        if reindexed:
            os.replace(reindexed, journal)
    return {"points": result["points"], "total": run.n_points, "dropped": result["dropped"], "rebuilt": True}


__all__ = ["NEW_JOURNAL", "recover", "reindex_compressed", "replay"]
