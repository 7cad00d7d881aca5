"""Where numba keeps the compiled kernels on disk: a per-user cache directory, never the installed package.

numba writes the machine code of ``cache=True`` functions next to their source (``__pycache__``) unless told
otherwise. Inside an installed package that breaks three ways: ``pip uninstall`` leaves those files behind, so
``pip install .`` followed by ``pip install -e .`` keeps a bare ``site-packages/meanfield`` that shadows the
editable install; a reinstall throws the compiled kernels away; and a read-only site-packages (common on
clusters) cannot hold them. So, on import of :mod:`meanfield.kernels`, which ``meanfield/__init__.py`` imports
first (numba fixes a function's cache location when it is defined, and the package's compiled functions, those of
:mod:`meanfield.analysis` included, must all find it set), the cache goes to ``NUMBA_CACHE_DIR`` when the user
set it, else to :func:`default_cache_dir`, and the variable is set for the processes meanfield starts (Dask
workers). docs/getting_started.md, "Quick start", says how to move or clear it.

Within that directory numba names a source file's cache folder after the file's absolute path, so every copy of
the package — a clone, ``pip install .``, the editable install that follows it, a test's fresh copy, the workers'
install on a cluster — compiled everything again. meanfield's compiled functions are declared with
:func:`cached_jit`, which puts a locator of its own first among numba's (:func:`share_compiled_code`): a file of
the package gets the folder ``meanfield.<module>_<hash of its content>``, and a closure's entry is keyed on its
cells with each dispatcher among them named by its uuid (numba pickles a dispatcher's code, absolute path
included), so copies of the same sources share their machine code and different versions keep theirs apart
(numba's own check, a hash of the file's content, stays). Functions outside the package (a user's map) are cached
as numba does. A compiled function handed to another as an argument (a user's map to the orbit, Newton and
Lyapunov drivers of :mod:`meanfield.analysis`) is a type of its own in numba's signature, which names the process's
function object, so numba never finds such an entry again; here it is keyed by the function's module, name, code,
file and closure instead, and a map compiles its drivers once per version of its file, not once per process.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import os
import pickle
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
    from numba.core import caching, types
    from numba.core.dispatcher import Dispatcher
    from numba.core.serialize import dumps
    from numba.core.typing import signature

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
        the kernels fix from their names and sources (:mod:`meanfield.kernels.cpu`). An argument that is a
        compiled function (a user's map handed to a driver) is keyed by :func:`_function_key`, and an entry
        loaded for it takes the caller's argument types (numba's would name the saving process's function)."""

        def _index_key(self, sig, codegen):
            key = super()._index_key(sig, codegen)
            args = tuple(_function_key(a.dispatcher) if isinstance(a, types.Dispatcher) else a
                         for a in _arguments(sig))
            if self._py_func.__closure__ is None:
                return (args,) + key[1:]
            cells = tuple(value._uuid if isinstance(value, Dispatcher) else value
                          for value in (cell.cell_contents for cell in self._py_func.__closure__))
            return (args, key[1], (key[2][0], hashlib.sha256(dumps(cells)).hexdigest()))

        def load_overload(self, sig, target_context):
            compiled = super().load_overload(sig, target_context)
            if compiled is None or not any(isinstance(a, types.Dispatcher) for a in _arguments(sig)):
                return compiled
            return compiled._replace(signature=signature(compiled.signature.return_type, *_arguments(sig)))

        def save_overload(self, sig, data):
            if all(_function_key(a.dispatcher) is not None for a in _arguments(sig)
                   if isinstance(a, types.Dispatcher)):
                super().save_overload(sig, data)

    caching.CacheImpl._locator_classes.insert(0, PackageCacheLocator)
    return PackageFunctionCache


def _arguments(sig) -> tuple:
    """The argument types of a signature numba hands its cache (a tuple of types, or a Signature)."""
    return tuple(sig.args) if hasattr(sig, "args") else tuple(sig)


def _function_key(dispatcher) -> tuple | None:
    """A compiled function's identity across processes, for the cache entries of the functions it is handed to:
    its module and name, its options, a hash of its bytecode, of its file's content (the helpers beside it) and of
    its closure's cells (compiled functions among them by their own keys). None when its file cannot be read or a
    cell cannot be pickled: such an argument's overloads are never saved. Like numba's own cache, it does not see
    an edit of a function it calls from another file."""
    from numba.core.dispatcher import Dispatcher
    from numba.core.serialize import dumps

    function = dispatcher.py_func
    try:
        digest = hashlib.sha256(Path(inspect.getsourcefile(function)).read_bytes())
        cells = tuple(cell.cell_contents for cell in function.__closure__ or ())
        keys = tuple(_function_key(cell) if isinstance(cell, Dispatcher) else cell for cell in cells)
        if any(key is None for key, cell in zip(keys, cells) if isinstance(cell, Dispatcher)):
            return None
        digest.update(dumps(keys))
    except (TypeError, OSError, ValueError, pickle.PicklingError):
        return None
    digest.update(function.__code__.co_code)
    options = repr(sorted(dispatcher.targetoptions.items()))
    return function.__module__, function.__qualname__, options, digest.hexdigest()


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
