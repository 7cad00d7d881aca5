"""meanfield: dynamical mean-field theory of self-attention with 1-bit tokens (Poc-López & Aguilera,
arXiv 2406.07247) — simulation, sweeps, Lyapunov spectra and attractor analysis."""
from . import presets
from .config import Control, ModelSpec
from .errors import AnalysisError, BackendError, ConfigError, MeanfieldError, StoreError
from .model import OBSERVABLES, State, pattern_token
from .simulate import BatchResult, Trajectory, simulate, simulate_batch

__version__ = "0.1.0"

__all__ = ["presets", "Control", "ModelSpec", "State", "OBSERVABLES", "pattern_token", "simulate",
           "simulate_batch", "Trajectory", "BatchResult", "MeanfieldError", "ConfigError", "StoreError",
           "BackendError", "AnalysisError"]
