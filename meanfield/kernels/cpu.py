"""CPU backend: the shared step functions compiled with numba, batched over parameter points with ``prange``.

Points are independent and each is iterated by the same sequential code, so results are bitwise identical
whatever the batch composition, order or numba thread count (design.md, Performance facts).
"""
from numba import njit

from .step import build_steps

STEPS = build_steps(njit(cache=True, error_model="numpy"),
                    parallel_jit=njit(parallel=True, cache=True, error_model="numpy"))
run_batch = STEPS["run_batch"]
attention_jacobian = STEPS["attention_jacobian"]
