"""A sweep chunk on the CUDA backend (device reductions, classification on the returned rows) equals the CPU
chunk. Runs in the simulator process (NUMBA_ENABLE_CUDASIM=1)."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.sweeps.execute.tasks import compute_chunk

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
    assert sorted(cpu) == sorted(gpu)
    for name in cpu:
        if np.asarray(cpu[name]).dtype.kind == "U":    # the computing host (provenance), not a number
            np.testing.assert_array_equal(gpu[name], cpu[name], err_msg=name)
            continue
        # the simulator executes the same float64 operations: equal up to summation-order rounding
        np.testing.assert_allclose(np.asarray(gpu[name], dtype=float), np.asarray(cpu[name], dtype=float),
                                   rtol=0, atol=1e-12, err_msg=name)
