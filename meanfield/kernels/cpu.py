"""CPU backend: the shared step functions compiled with numba, batched over parameter points with ``prange``.

Points are independent and each is iterated by the same sequential code, so results are bitwise identical
whatever the batch composition, order or numba thread count (docs/model.md §3.3).

On-disk caching: the step functions are closures of :func:`~meanfield.kernels.step.build_steps` that call each
other, and numba keys a closure's cache entry on a pickle of its closure cells — here other dispatchers, which
pickle with a random per-process uuid. Giving each dispatcher a fixed uuid (its qualified name) makes the key
the same in every process, so worker processes load the compiled kernels instead of recompiling (~20 s).
"""
from numba import njit

from .step import build_steps


def _cached(**options):
    """``njit(cache=True, ...)`` whose dispatchers carry a process-independent uuid (see module docstring)."""
    def decorate(function):
        dispatcher = njit(cache=True, error_model="numpy", **options)(function)
        dispatcher._set_uuid(f"meanfield.kernels.cpu:{function.__qualname__}")
        return dispatcher
    return decorate


STEPS = build_steps(_cached(), parallel_jit=_cached(parallel=True))
run_batch = STEPS["run_batch"]
attention_jacobian = STEPS["attention_jacobian"]
