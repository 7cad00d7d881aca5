"""The life of a sweep's result file (docs/storage.md §5): what an existing ``OUT.h5`` means for this run,
which file the points go to, and when it becomes ``OUT.h5``. Called under the file's writer lock
(:mod:`.lock`); every decision is made reading only, so a refusal leaves everything as it was.

* No ``OUT.h5`` (or one holding 0 points, left by a run stopped before its first chunk): the new file is
  created as ``OUT.h5.part`` and renamed to ``OUT.h5`` as soon as its layout is written and flushed, so
  ``OUT.h5`` is never a half-created file. A ``.part`` of the same run spec (a creation or a ``--force`` run
  that was stopped) is continued instead of started over.
* ``OUT.h5`` with points of the same run spec: resumed in place (only missing points are computed).
* ``overwrite`` (``--force``): the new run goes to ``OUT.h5.part`` and replaces ``OUT.h5`` only once every
  point is done; stopped earlier, ``OUT.h5`` is untouched and the same command continues the ``.part``.
* The journal (docs/storage.md §8): ``OUT.h5.journal`` (``OUT.h5.part.journal`` while a ``--force`` run is
  not finished, renamed with it) holds every finished chunk. An ``OUT.h5`` that is damaged (not readable, its
  coordinates or run attributes changed, points failing their checksums) is rebuilt from it as a new
  ``.part`` that replaces it; without a journal, damaged points are recomputed in place and an unreadable file
  is refused.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

import numpy as np

from ...errors import StoreError
from ..config.runfile import RunSpec
from . import (
    PART_SUFFIX,
    SWEEP_KIND,
    create_sweep,
    differences,
    mark_finished,
    open_sweep,
    raw_nbytes,
    reading,
    require_same_run,
    require_sweep,
    sweep_nbytes,
    sweep_state,
)
from .chunk_journal import recoverable
from .journal import Journal, journal_path, read_journal
from .recover import reindex_compressed, replay
from .sweep import checked_names, sweep_layout
from .verify import damage, describe


def _gib(n: int) -> str:
    return f"{n / 2 ** 30:.3g} GiB"


@dataclass
class SweepOutput:
    """Where a run's points go: ``work`` (``path`` itself or ``path + PART_SUFFIX``), whether it must be
    created, how many points it already holds, and whether it replaces ``path`` at the end (``--force``)."""

    run: RunSpec
    path: str
    work: str
    create: bool
    done: int
    replace: bool
    #: flat indices of points whose stored data failed their checksums (recomputed: no journal to restore them)
    invalid: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: one line on damage found in ``path`` and what is done about it (the caller prints it)
    note: str = ""
    journal: Journal | None = None

    @property
    def complete(self) -> bool:
        return not self.create and self.done == self.run.n_points and not self.invalid.size

    @property
    def journal_path(self) -> str:
        """The journal beside the file that ends up as ``path`` (docs/storage.md §8)."""
        return journal_path(self.path + PART_SUFFIX if self.replace else self.path)

    def open(self):
        """The work file open for writing (created, or reopened to resume), with the journal's records of
        points it lacks replayed into it and the journal open for appending; a new file that does not replace
        an old one is renamed to ``path`` right away."""
        f = create_sweep(self.work, self.run, overwrite=True) if self.create else open_sweep(self.work, self.run)
        try:
            if self.invalid.size:
                flags = f["done"][...].reshape(-1)
                flags[self.invalid] = 0
                f["done"][...] = flags.reshape(f["done"].shape)
                f.flush()
            # index records point into the file they were written for: the damaged one a new file rebuilds
            source = self.work if not self.create else None if self.replace else self.path
            replay(f, self.run, self.journal_path, source=source)
            reindexed = reindex_compressed(f, self.run, self.journal_path) if self.create else None
            if self.work != self.path and not self.replace:
                os.replace(self.work, self.path)
                self.work = self.path
            if reindexed:
                os.replace(reindexed, self.journal_path)
            self.journal = Journal.start(self.journal_path, self.run, checked_names(sweep_layout(self.run)))
        except BaseException:
            f.close()
            raise
        return f

    def finish(self, f) -> str:
        """Stamp the finished file, close it and, with ``--force``, put it (and its journal) in place of the
        old one."""
        mark_finished(f)
        f.close()
        self.close_journal()
        if self.work != self.path:
            if os.path.exists(self.journal_path):
                os.replace(self.journal_path, journal_path(self.path))
            os.replace(self.work, self.path)
        return self.path

    def close_journal(self) -> None:
        if self.journal is not None:
            self.journal.close()

    def stopped(self, written: int) -> str:
        """One line on what a stopped run left behind."""
        total = self.run.n_points
        if self.replace:
            return (f"{self.path} is unchanged; the new run's {written}/{total} points are in {self.work}: run the "
                    "same command again to continue it")
        return f"{written}/{total} points are stored in {self.path}; run again to resume"


def _readable_state(path):
    try:
        return sweep_state(path)
    except StoreError:
        return None


def _examine(path) -> tuple:
    """(state, problem, damaged points) of an existing file, reading only: ``problem`` one phrase on what is
    damaged (None when nothing is), ``damaged`` the flat indices of done points whose data fail their checksums
    (empty when the damage is not only there: the file is then unusable without its journal; docs/storage.md
    §8)."""
    try:
        state = sweep_state(path)
        if state["kind"] != SWEEP_KIND:
            return state, None, np.zeros(0, np.int64)
        with reading(path) as f:
            found = damage(f)
    except StoreError as exc:
        return None, str(exc), np.zeros(0, np.int64)
    except (OSError, KeyError, ValueError, RuntimeError, TypeError) as exc:     # damaged past the open
        return None, f"{path!r} is damaged ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})", \
            np.zeros(0, np.int64)
    grid = [(name, bad) for name, bad in found if bad is not None and "/" not in name]
    if any(bad is None for _, bad in found):
        return state, describe(path, found), np.zeros(0, np.int64)
    if not grid:
        return state, None, np.zeros(0, np.int64)
    return state, describe(path, grid), np.unique(np.concatenate([bad for _, bad in grid]))


def _damaged(run: RunSpec, path: str, state, problem, bad):
    """The SweepOutput that repairs a damaged ``path`` (rebuilt from its journal, or its damaged points
    recomputed in place), None when it is intact; StoreError when it cannot be repaired."""
    journal = read_journal(journal_path(path)) if os.path.exists(journal_path(path)) else None
    usable = journal is not None and journal.matches(run)
    if problem is None and state["kind"] == SWEEP_KIND and differences(state, run) and usable:
        problem = f"{path!r} holds run attributes that differ from its journal's"
    if problem is None:
        return None
    found = problem
    if usable:
        names = checked_names(sweep_layout(run))
        points = len({int(i) for indices, _ in journal.records(names) for i in indices}
                     | recoverable(journal, run, names, path))
        note = (f"{found}; rebuilding it from {journal_path(path)}: {points}/{run.n_points} points recovered, "
                f"{journal.dropped} damaged journal record(s) dropped, {run.n_points - points} points to compute")
        return SweepOutput(run, path, path + PART_SUFFIX, True, 0, False, note=note)
    if not bad.size:
        raise StoreError(f"{problem}; a sweep killed while creating it leaves such a file: delete it and run again, "
                         f"or replace it (--force) (no journal {journal_path(path)!r} of this run to rebuild it from)")
    require_sweep(path, state)
    require_same_run(path, state, run)
    note = f"{found}; no journal to rebuild it from: those {bad.size} points are computed again"
    return SweepOutput(run, path, path, False, state["done"] - bad.size, False, invalid=bad, note=note)


def plan_output(run: RunSpec, path, resume: bool | None = None, overwrite: bool = False) -> SweepOutput:
    """Decide, reading only, where ``run``'s points go (see the module docstring); StoreError when ``path``
    holds something this run must not touch, or when the disk cannot hold a new file."""
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        state, problem, bad = _examine(path)
        repair = _damaged(run, path, state, problem, bad)
        if repair is not None:
            return repair
        require_sweep(path, state)
        if state["done"]:
            if resume is False:
                raise StoreError(f"output {path!r} exists: resume it (--resume), overwrite it (--force) or choose "
                                 "another")
            require_same_run(path, state, run)
            return SweepOutput(run, path, path, False, state["done"], False)
    part = path + PART_SUFFIX
    state = _readable_state(part) if os.path.exists(part) else None
    replace = overwrite and os.path.exists(path)
    if state is not None and state["kind"] == SWEEP_KIND and not differences(state, run):
        return SweepOutput(run, path, part, False, state["done"], replace)
    need, allocated = raw_nbytes(run), sweep_nbytes(run)
    directory = os.path.dirname(os.path.abspath(path))
    free = shutil.disk_usage(directory).free + (os.path.getsize(part) if os.path.exists(part) else 0)
    if need > free:
        how = "allocated in full when it is created" if allocated == need else "uncompressed, the most it can take"
        raise StoreError(f"output {path!r}: the sweep file needs {_gib(need)} ({how}) and {directory} has "
                         f"{_gib(free)} free; free some space or choose another disk")
    return SweepOutput(run, path, part, True, 0, replace)


__all__ = ["SweepOutput", "plan_output"]
