"""Provenance of result files (docs/storage.md §1): which code made them, with which libraries, how and where.

Every file holds a list of records, one per invocation that wrote into it (the ``provenance`` attribute, JSON):
a sweep's creation and each resume append their own, so a file computed in several sessions, on several
machines or with several versions of the code says so.
"""
from __future__ import annotations

import datetime
import os
import platform
import shlex
import subprocess
import sys
from importlib import metadata

from ...version import __version__

#: Libraries whose versions can change a stored number or how a file is read.
LIBRARIES = ("numpy", "numba", "llvmlite", "scipy", "dask", "distributed", "h5py", "h5netcdf", "xarray")


def _git(*args) -> str:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        done = subprocess.run(["git", *args], cwd=here, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def code_version() -> dict:
    """``meanfield_version`` (from git at install time, :mod:`meanfield.version`) and, when the package runs
    from a git checkout of its own source, ``git_commit`` and ``git_dirty`` (uncommitted changes)."""
    out = {"meanfield_version": __version__}
    if _git("ls-files", "--error-unmatch", "version.py"):            # this source tree is the repository's
        out["git_commit"] = _git("rev-parse", "HEAD") or "unknown"
        out["git_dirty"] = bool(_git("status", "--porcelain", "--untracked-files=no", "--", "."))
    return out


def environment() -> dict:
    """Python, the platform and the versions of :data:`LIBRARIES` (absent ones: ``None``)."""
    versions = {"python": platform.python_version(), "platform": platform.platform()}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def now() -> str:
    """The current UTC time, ISO 8601."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def command_line() -> str:
    """The command line of this process, ``python -m meanfield ...`` spelled as such."""
    argv = list(sys.argv)
    if argv and argv[0].endswith(os.path.join("meanfield", "__main__.py")):
        argv[0:1] = ["python", "-m", "meanfield"]
    return shlex.join(argv)


def record(action: str, **details) -> dict:
    """One provenance record: ``action`` (``"simulate"``, ``"create"``, ``"resume"``), the time, host,
    command line, code version, library versions and ``details`` (cluster kind, workers, worker hosts, ...)."""
    return {"action": action, "time": now(), "host": platform.node(), "command": command_line(), "cwd": os.getcwd(),
            **code_version(), "versions": environment(), **details}


__all__ = ["record", "command_line", "code_version", "environment", "now", "LIBRARIES"]
