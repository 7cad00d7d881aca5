"""All compiled code, importing only :mod:`meanfield.model` (and, for the GPU's reductions, the CPU's in
:mod:`meanfield.analysis.reductions`, which they equal): the step shared by CPU and CUDA (:mod:`.step`) with its
vectorisable exp, tanh and log (:mod:`.lane_math`), its CPU (:mod:`.cpu`) and CUDA (:mod:`.cuda`) builds, the
per-point reductions on the GPU (:mod:`.cuda_reductions`; on the CPU they are
:mod:`meanfield.analysis.reductions`), the PID tangent map (:mod:`.pid_tangent`) and the finite-N network
(:mod:`.finite`). Importing it points numba's disk cache at a per-user directory
(:mod:`meanfield.compiled_cache`) before any kernel is defined."""
from ..compiled_cache import configure_cache

configure_cache()
