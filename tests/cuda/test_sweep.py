"""A sweep chunk on the CUDA backend (device reductions, classification on the returned rows) equals the CPU
chunk: to 1e-12 in the simulator process (NUMBA_ENABLE_CUDASIM=1), within the CPU's own sensitivity to rounding
on a real GPU (helpers.spread_bound)."""
import dataclasses

import numpy as np
import pytest

import meanfield as mf
from meanfield.sweeps.config.tables import StartSpec
from meanfield.sweeps.execute.tasks import compute_chunk

from .helpers import SIMULATOR, TOL, assert_device_close, moved_state, spread_bound

pytestmark = pytest.mark.cudasim

RUN = """
name = "tiny_gpu"
steps = 320
transient = 100
lyapunov = 2
chunk = 3
backend = "{backend}"

[model]
preset = "paper"

[grid]
beta_o = [0.5, 1.3, 2.5]

[record]
observables = ["mo_se"]
tail = 10

[reductions]
observable = "mo_se"
bins = 20
band_pairs = [[0, 1]]
band_tol = 0.05
band_cap = 4
"""


def test_cuda_chunk_equals_cpu_chunk():
    chunks = {}
    for backend in ("cpu", "cuda"):
        run = mf.load_run(RUN.format(backend=backend))
        chunks[backend] = compute_chunk(run, np.arange(3), np.full(3, -1))
    cpu, gpu = chunks["cpu"], chunks["cuda"]
    shifted = cpu
    if not SIMULATOR:
        run = mf.load_run(RUN.format(backend="cpu"))
        start = moved_state(run.model.checkpoint)
        run = dataclasses.replace(run, start=StartSpec(kind="state", att=tuple(map(tuple, start.att)),
                                                       pe=tuple(map(tuple, start.pe))))
        shifted = compute_chunk(run, np.arange(3), np.full(3, -1))
    assert sorted(cpu) == sorted(gpu)
    for name in cpu:
        if np.asarray(cpu[name]).dtype.kind == "U":    # the computing host (provenance), not a number
            np.testing.assert_array_equal(gpu[name], cpu[name], err_msg=name)
            continue
        # the simulator executes the same float64 operations: equal up to summation-order rounding
        expected = np.asarray(cpu[name], dtype=float)
        bound = TOL if SIMULATOR else spread_bound(expected, np.asarray(shifted[name], dtype=float))
        assert_device_close(np.asarray(gpu[name], dtype=float), expected, bound, name)
