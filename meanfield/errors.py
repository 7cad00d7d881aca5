"""The one exception family users see.

Every error a user can cause derives from :class:`MeanfieldError`; messages name the offending key, the
value and what is allowed.
"""


class MeanfieldError(Exception):
    """Base class of every error raised on purpose by meanfield."""


class ConfigError(MeanfieldError, ValueError):
    """A model, start, run file or parameter is invalid (raised before any compilation)."""


class StoreError(MeanfieldError, OSError):
    """An HDF5 result file cannot be written, read or resumed."""


class BackendError(MeanfieldError, RuntimeError):
    """A compute backend (e.g. CUDA) is unavailable or failed."""


class AnalysisError(MeanfieldError, ValueError):
    """An analysis got input it cannot give a defensible answer for (empty, NaN, too short)."""


class ClusterError(MeanfieldError, RuntimeError):
    """A cluster gives a sweep no progress: no workers, jobs SLURM cannot or does not start (the watchdog of
    :mod:`meanfield.sweeps.execute.watchdog`). The command exits with status 3."""
