"""meanfield: dynamical mean-field theory of self-attention with 1-bit tokens (Poc-López & Aguilera,
arXiv 2406.07247) — simulation, sweeps, Lyapunov spectra and attractor analysis."""
from . import presets
from .config import Control, ModelSpec
from .errors import AnalysisError, BackendError, ConfigError, MeanfieldError, StoreError
from .finite import FiniteBatch, FiniteTrajectory, aligned_start, finite_weights, simulate_finite, simulate_finite_batch
from .model import OBSERVABLES, State, pattern_token
from .runfile import RunSpec, load_run
from .simulate import BatchResult, Trajectory, simulate, simulate_batch
from .store import open_run
from .sweep import sweep
from . import sweep_analysis

__version__ = "0.1.0"

__all__ = ["presets", "Control", "ModelSpec", "State", "OBSERVABLES", "pattern_token", "simulate",
           "simulate_batch", "Trajectory", "BatchResult", "MeanfieldError", "ConfigError", "StoreError",
           "BackendError", "AnalysisError", "sweep", "load_run", "open_run", "RunSpec", "simulate_finite",
           "simulate_finite_batch", "FiniteTrajectory", "FiniteBatch", "finite_weights", "aligned_start", "sweep_analysis"]
