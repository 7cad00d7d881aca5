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
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from ...errors import StoreError
from ..config.runfile import RunSpec
from . import (
    PART_SUFFIX,
    SWEEP_KIND,
    create_sweep,
    differences,
    mark_finished,
    open_sweep,
    require_same_run,
    require_sweep,
    sweep_nbytes,
    sweep_state,
)


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

    @property
    def complete(self) -> bool:
        return not self.create and self.done == self.run.n_points

    def open(self):
        """The work file open for writing (created, or reopened to resume); a new file that does not replace
        an old one is renamed to ``path`` right away."""
        f = create_sweep(self.work, self.run, overwrite=True) if self.create else open_sweep(self.work, self.run)
        if self.work != self.path and not self.replace:
            os.replace(self.work, self.path)
            self.work = self.path
        return f

    def finish(self, f) -> str:
        """Stamp the finished file, close it and, with ``--force``, put it in place of the old one."""
        mark_finished(f)
        f.close()
        if self.work != self.path:
            os.replace(self.work, self.path)
        return self.path

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


def plan_output(run: RunSpec, path, resume: bool | None = None, overwrite: bool = False) -> SweepOutput:
    """Decide, reading only, where ``run``'s points go (see the module docstring); StoreError when ``path``
    holds something this run must not touch, or when the disk cannot hold a new file."""
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        try:
            state = sweep_state(path)
        except StoreError as exc:
            raise StoreError(f"{exc}; a sweep killed while creating it leaves such a file: delete it and run "
                             "again, or replace it (--force)") from None
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
    need = sweep_nbytes(run)
    directory = os.path.dirname(os.path.abspath(path))
    free = shutil.disk_usage(directory).free + (os.path.getsize(part) if os.path.exists(part) else 0)
    if need > free:
        raise StoreError(f"output {path!r}: the sweep file needs {_gib(need)} (allocated in full when it is "
                         f"created) and {directory} has {_gib(free)} free; free some space or choose another disk")
    return SweepOutput(run, path, part, True, 0, replace)


__all__ = ["SweepOutput", "plan_output"]
