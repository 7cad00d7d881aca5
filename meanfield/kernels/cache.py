"""Where numba keeps the compiled kernels on disk: a per-user cache directory, never the installed package.

numba writes the machine code of ``cache=True`` functions next to their source (``__pycache__``) unless told
otherwise. Inside an installed package that breaks three ways: ``pip uninstall`` leaves those files behind, so
``pip install .`` followed by ``pip install -e .`` keeps a bare ``site-packages/meanfield`` that shadows the
editable install; a reinstall throws the compiled kernels away; and a read-only site-packages (common on
clusters) cannot hold them. So, on import of :mod:`meanfield.kernels`, which ``meanfield/__init__.py`` imports
first (numba fixes a function's cache location when it is defined, and the package's compiled functions, those of
:mod:`meanfield.analysis` included, must all find it set), the cache goes to ``NUMBA_CACHE_DIR`` when the user
set it, else to :func:`default_cache_dir`, and the variable is set for the processes meanfield starts (Dask
workers). README, "Quick start", says how to move or clear it.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/meanfield/numba`` (``~/.cache/meanfield/numba`` when XDG_CACHE_HOME is unset), the
    XDG base-directory convention; ``%LOCALAPPDATA%\\meanfield\\numba`` on Windows."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "meanfield" / "numba"


def configure_cache() -> str:
    """Point numba's disk cache at ``NUMBA_CACHE_DIR`` if set (and not empty), else at
    :func:`default_cache_dir`, and return that directory. numba reads the variable when it is first imported;
    if that happened before meanfield was, its configuration is set as well. A directory that cannot
    be created or written is skipped by numba itself (it then tries its next cache locations)."""
    path = os.environ.get("NUMBA_CACHE_DIR") or str(default_cache_dir())
    os.environ["NUMBA_CACHE_DIR"] = path
    if "numba" in sys.modules:          # else numba reads the variable when it is imported (importing it costs)
        from numba.core import config
        config.CACHE_DIR = path
    return path


__all__ = ["default_cache_dir", "configure_cache"]
