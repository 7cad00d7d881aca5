"""The writer lock of a result file (docs/storage.md §5): ``OUT.h5.lock`` next to ``OUT.h5``, holding the
writer's host, PID, process start time and program as JSON.

HDF5's own file lock is often off (``HDF5_USE_FILE_LOCKING=FALSE``, common on NFS and Lustre) and its error
does not say who holds the file, so every meanfield writer of a file takes this lock first and a second
writer stops with "OUT.h5 is being written by meanfield sweep (pid …, host …)". The lock file appears
atomically (written under a private name, then hard-linked into place, which fails if it exists: safe on
NFS) and is removed on exit. A lock left by a killed writer is stale when its host is this machine and its
process is gone (or the PID now belongs to a process started at another time); a stale lock is taken over.
A lock from another host cannot be checked from here and is respected.
"""
from __future__ import annotations

import json
import os
import platform
import sys
from contextlib import contextmanager
from dataclasses import asdict, dataclass

import psutil

from ...errors import StoreError

#: Suffix of the lock file: ``OUT.h5`` is locked by ``OUT.h5.lock``.
LOCK_SUFFIX = ".lock"


class FileBusy(StoreError):
    """Another live process holds the writer lock of the file."""


@dataclass(frozen=True)
class Holder:
    """Who holds a lock: host, PID, the process's start time (seconds since the epoch) and the program."""

    host: str
    pid: int
    started: float
    program: str

    def alive(self) -> bool:
        """False when the holder is known to be gone (same host, no such process or another one under its
        PID); True otherwise, including a holder on another host."""
        if self.host != platform.node():
            return True
        try:
            return abs(psutil.Process(self.pid).create_time() - self.started) < 1e-3
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            return False
        except psutil.Error:
            return True

    def describe(self, path) -> str:
        return f"{os.fspath(path)} is being written by {self.program} (pid {self.pid}, host {self.host})"


def lock_path(path) -> str:
    return os.fspath(path) + LOCK_SUFFIX


def _read(lock: str):
    """(text, Holder) of a lock file; (None, None) when it is gone; (text, None) when it is not a lock."""
    try:
        with open(lock, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return None, None
    try:
        return text, Holder(**json.loads(text))
    except (ValueError, TypeError):
        return text, None


def holder(path) -> Holder | None:
    """The live holder of ``path``'s writer lock, or None when nobody (alive) writes it."""
    _, who = _read(lock_path(path))
    return who if who is not None and who.alive() else None


def _busy(path, lock: str, who: Holder | None) -> FileBusy:
    if who is None:
        return FileBusy(f"{lock} exists but is not a meanfield lock file: delete it if nothing is writing "
                        f"{os.fspath(path)}")
    hint = "" if who.host == platform.node() else f"; if no sweep is running on {who.host}, delete {lock}"
    return FileBusy(who.describe(path) + hint)


@contextmanager
def writer_lock(path, program: str = "meanfield sweep"):
    """Hold the writer lock of ``path`` for the ``with`` block; FileBusy when another live writer holds it."""
    lock = lock_path(path)
    me = Holder(platform.node(), os.getpid(), psutil.Process().create_time(), program)
    text = json.dumps(asdict(me))
    private = f"{lock}.{me.host}.{me.pid}"
    try:
        with open(private, "w", encoding="utf-8") as fh:
            fh.write(text)
        for _ in range(3):
            try:
                os.link(private, lock)
                break
            except FileExistsError:
                found, who = _read(lock)
                if found is None:
                    continue                            # released meanwhile: try again
                if who is None or who.alive():
                    raise _busy(path, lock, who) from None
                if _read(lock)[0] == found:             # still the same stale lock: take it over
                    os.remove(lock)
                    print(f"meanfield: removed the stale lock of pid {who.pid} (host {who.host}), which is no "
                          "longer running", file=sys.stderr)
        else:
            raise _busy(path, lock, _read(lock)[1])
    except OSError as exc:
        if isinstance(exc, StoreError):
            raise
        raise StoreError(f"cannot create the lock file {lock}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(private):
            os.remove(private)
    try:
        yield me
    finally:
        if _read(lock)[0] == text:
            os.remove(lock)


__all__ = ["writer_lock", "holder", "lock_path", "FileBusy", "Holder", "LOCK_SUFFIX"]
