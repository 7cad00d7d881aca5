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

Within that directory numba names a source file's cache folder after the file's absolute path, so every copy of
the package — a clone, ``pip install .``, the editable install that follows it, a test's fresh copy, the workers'
install on a cluster — compiled everything again. meanfield's compiled functions are declared with
:func:`cached_jit`, which puts a locator of its own first among numba's (:func:`share_compiled_code`): a file of
the package gets the folder ``meanfield.<module>_<hash of its content>``, and a closure's entry is keyed on its
cells with each dispatcher among them named by its uuid (numba pickles a dispatcher's code, absolute path
included), so copies of the same sources share their machine code and different versions keep theirs apart
(numba's own check, a hash of the file's content, stays). Functions outside the package (a user's map) are cached
as numba does.
"""
from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

#: The package's folder: the files under it are cached by content, wherever the package is.
PACKAGE = Path(__file__).resolve().parents[1]


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


def package_cache_subpath(py_file) -> str | None:
    """The cache folder of a source file of the package, ``meanfield.<module>_<sha1 of its content, 16 hex>``;
    None for a file outside it."""
    path = Path(py_file).resolve()
    try:
        module = path.relative_to(PACKAGE).with_suffix("")
    except ValueError:
        return None
    return "meanfield." + ".".join(module.parts) + "_" + hashlib.sha1(path.read_bytes()).hexdigest()[:16]


@functools.cache
def share_compiled_code():
    """Put the package's locator first among numba's cache locators, once, and return the class of a function's
    cache whose key holds the dispatchers of a closure by their uuid (module docstring). It imports numba."""
    from numba.core import caching
    from numba.core.dispatcher import Dispatcher
    from numba.core.serialize import dumps

    class PackageCacheLocator(caching.UserProvidedCacheLocator):
        """numba's locator for NUMBA_CACHE_DIR, its folder named by :func:`package_cache_subpath`."""

        @classmethod
        def from_function(cls, py_func, py_file):
            return super().from_function(py_func, py_file) if package_cache_subpath(py_file) else None

        @classmethod
        def get_suitable_cache_subpath(cls, py_file):
            return package_cache_subpath(py_file)

    class PackageFunctionCache(caching.FunctionCache):
        """numba's cache of one function; numba keys a closure's entries on a pickle of its cells, in which a
        dispatcher carries its code and so its file's absolute path: here a dispatcher cell is its uuid, which
        the kernels fix from their names and sources (:mod:`meanfield.kernels.cpu`)."""

        def _index_key(self, sig, codegen):
            key = super()._index_key(sig, codegen)
            if self._py_func.__closure__ is None:
                return key
            cells = tuple(value._uuid if isinstance(value, Dispatcher) else value
                          for value in (cell.cell_contents for cell in self._py_func.__closure__))
            return key[:2] + ((key[2][0], hashlib.sha256(dumps(cells)).hexdigest()),)

    caching.CacheImpl._locator_classes.insert(0, PackageCacheLocator)
    return PackageFunctionCache


def cached_jit(**options):
    """``numba.njit(cache=True, **options)`` with the package's locator and function cache
    (:func:`share_compiled_code`): the decorator of every compiled function of meanfield that is kept on disk."""
    function_cache = share_compiled_code()
    from numba import njit

    def decorate(function):
        dispatcher = njit(cache=True, **options)(function)
        dispatcher._cache = function_cache(dispatcher.py_func)
        return dispatcher
    return decorate


__all__ = ["cached_jit", "configure_cache", "default_cache_dir", "package_cache_subpath", "share_compiled_code"]
