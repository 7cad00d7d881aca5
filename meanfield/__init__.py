"""meanfield: dynamical mean-field theory of self-attention with 1-bit tokens (Poc-López & Aguilera,
arXiv 2406.07247) — simulation, sweeps, Lyapunov spectra and attractor analysis.

The package's folders are its concerns, each importing only those below it: ``model`` (the system in plain
numpy), ``presets``, ``kernels`` (compiled code), ``simulation``, ``periodic_orbits`` and ``finite`` (the
two systems' API: runs, periodic orbits and bifurcations),
``analysis`` (generic series -> numbers), ``census`` (every attractor at a point), ``sweeps`` (run files,
Dask, the result files), ``studies``, ``plots`` and ``cli``. The names below are the public API.
"""
# First of all: importing the kernels package points numba's disk cache at the per-user directory
# (meanfield/kernels/cache.py; that package's __init__ imports nothing compiled). numba fixes where a
# ``cache=True`` function's machine code goes when the function is defined, and ``analysis`` (imported next)
# defines some: imported before this, they would write into the installed package.
from . import kernels  # noqa: F401

# isort: split
from . import analysis, presets
from .analysis.maps import Map
from .bifurcation_curves import bifurcation_curve
from .census import continue_attractors, find_attractors
from .errors import AnalysisError, BackendError, ClusterError, ConfigError, MeanfieldError, StoreError
from .finite import FiniteBatch, FiniteTrajectory, aligned_start, finite_weights, simulate_finite, simulate_finite_batch
from .model import OBSERVABLES, Control, ModelSpec, State, pattern_token
from .periodic_orbits import bifurcations, confirm_cycle, periodic_orbit
from .simulation import BatchResult, Trajectory, simulate, simulate_batch
from .sweeps.config.runfile import RunSpec, load_run
from .sweeps.execute.run import sweep
from .sweeps.results.dataset import sweep_results
from .sweeps.store import open_run
from .version import __version__

__all__ = ["presets", "analysis", "Map", "Control", "ModelSpec", "State", "OBSERVABLES", "pattern_token", "simulate",
           "simulate_batch", "periodic_orbit", "bifurcations", "bifurcation_curve", "confirm_cycle", "find_attractors",
           "continue_attractors", "Trajectory", "BatchResult",
           "MeanfieldError", "ConfigError", "StoreError", "BackendError", "AnalysisError", "ClusterError", "sweep",
           "load_run", "open_run", "sweep_results", "RunSpec", "simulate_finite", "simulate_finite_batch",
           "FiniteTrajectory", "FiniteBatch", "finite_weights", "aligned_start", "__version__"]
