"""Runs the CUDA-simulator tests (marked ``cudasim``) in a child process, so that the README's single test
command covers them: the simulator must be enabled before numba is imported, which this process has done
already."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


#: For the fast loop, one test of each CUDA module in the simulator: the batch kernel against the CPU one
#: (kernels/cuda.py) and the on-device reductions inside simulate_batch (kernels/cuda_reductions.py).
SAMPLE = "test_simulate_batch_backend_cuda_equals_cpu or test_reducing_backend_in_simulate_batch"


def simulator_run(*selection: str) -> str:
    """``pytest -m cudasim`` of tests/cuda in a child process with the simulator enabled; its summary line."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    done = subprocess.run([sys.executable, "-m", "pytest", HERE, "-m", "cudasim", "-q", "-p", "no:cacheprovider",
                           *selection], env=env, capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.dirname(HERE)))
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "skipped" not in summary and "failed" not in summary, summary
    return summary


@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", reason="already inside the simulator run")
@pytest.mark.slow  # a whole pytest run in the simulator: CI, not the fast loop
def test_cuda_simulator_suite():
    passed = re.search(r"(\d+) passed", simulator_run())
    assert passed and int(passed.group(1)) >= 10, passed


@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", reason="already inside the simulator run")
def test_cuda_simulator_sample():
    passed = re.search(r"(\d+) passed", simulator_run("-k", SAMPLE))
    assert passed and int(passed.group(1)) == 2, passed
