"""meanfield: dynamical mean-field theory of self-attention with 1-bit tokens (Poc-López & Aguilera,
arXiv 2406.07247) — simulation, sweeps, Lyapunov spectra and attractor analysis.

The package's folders are its concerns, each importing only those below it: ``model`` (the system in plain
numpy), ``presets``, ``kernels`` (compiled code), ``simulation``, ``periodic_orbits``, ``bifurcation_curves``,
``tongues`` and ``finite`` (the two systems' API: runs, periodic orbits, bifurcations, curves and tongues),
``analysis`` (generic series -> numbers), ``census`` (every attractor at a point), ``sweeps`` (run files,
Dask, the result files), ``studies``, ``plots`` and ``cli``. The names below are the public API.
"""
# First of all: importing the kernels package points numba's disk cache at the per-user directory
# (meanfield/compiled_cache.py; that package's __init__ imports nothing compiled, nor numba). numba fixes where a
# ``cache=True`` function's machine code goes when the function is defined: every module that defines one is
# imported after this line.
from . import kernels  # noqa: F401

# isort: split
import importlib

from .errors import AnalysisError, BackendError, ClusterError, ConfigError, MeanfieldError, StoreError
from .version import __version__

#: The public names and the module each comes from. They are imported on first use (PEP 562), so that
#: ``import meanfield`` and the command line do not pay for numba, scipy, xarray and Dask until they are needed.
_LAZY = {
    "presets": ".presets", "analysis": ".analysis", "census": ".census",
    **dict.fromkeys(("OBSERVABLES", "Control", "ModelSpec", "State"), ".model"),
    **dict.fromkeys(("Compute", "Lyapunov", "Record"), ".options"),
    "simulate": ".simulation", "simulate_batch": ".simulation",
    "periodic_orbit": ".periodic_orbits", "bifurcations": ".periodic_orbits",
    "bifurcation_curve": ".bifurcation_curves", "arnold_tongue": ".tongues",
    "Map": ".analysis.maps",
    "find_attractors": ".census.find", "continue_attractors": ".census.continuation",
    **dict.fromkeys(("Replicas", "simulate_finite", "simulate_finite_batch"), ".finite"),
    "sweep": ".sweeps.execute.run", "Place": ".sweeps.config.where",
    "load_run": ".sweeps.config.runfile", "sweep_results": ".sweeps.results.dataset", "open_run": ".sweeps.store",
}


def __getattr__(name: str):
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'meanfield' has no attribute {name!r}") from None
    imported = importlib.import_module(module, __name__)
    value = imported if module == f".{name}" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [*_LAZY, "MeanfieldError", "ConfigError", "StoreError", "BackendError", "AnalysisError", "ClusterError",
           "__version__"]
