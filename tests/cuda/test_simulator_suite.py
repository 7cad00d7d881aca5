"""Runs the CUDA-simulator tests (marked ``cudasim``) in a child process, so that the README's single test
command covers them: the simulator must be enabled before numba is imported, which this process has done
already."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = pytest.mark.system  # the CUDA simulator's own process


#: For the fast loop, one test of each CUDA module in the simulator: the batch kernel against the CPU one
#: (kernels/cuda.py) and the on-device reductions inside simulate_batch (kernels/cuda_reductions.py).
SAMPLE = "test_simulate_batch_backend_cuda_equals_cpu or test_reducing_backend_in_simulate_batch"


def simulator_pytest(*options: str) -> str:
    """``pytest -m cudasim`` of tests/cuda in a child process with the simulator enabled; its summary line."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    done = subprocess.run([sys.executable, "-m", "pytest", HERE, "-m", "cudasim", "-q", "-p", "no:cacheprovider", "-n0",
                           *options], env=env, capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.dirname(HERE)))
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    return summary


def simulator_run(*selection: str) -> str:
    """The summary line of the simulator run of the ``cudasim`` tests (``selection``: more pytest options)."""
    summary = simulator_pytest(*selection)
    assert "skipped" not in summary and "failed" not in summary and "error" not in summary, summary
    return summary


def simulator_collected(*selection: str) -> int:
    """How many tests the same selection collects in the simulator (``--collect-only``: nothing runs)."""
    summary = simulator_pytest(*selection, "--collect-only")
    collected = re.match(r"(\d+)(/\d+)? tests? collected", summary)
    assert collected, summary
    return int(collected.group(1))


def passed(summary: str) -> int:
    found = re.search(r"(\d+) passed", summary)
    assert found, summary
    return int(found.group(1))


@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", reason="already inside the simulator run")
@pytest.mark.slow  # a whole pytest run in the simulator: CI, not the fast loop
def test_cuda_simulator_suite():
    """Every cudasim test the simulator collects passes: the run's count of passed tests equals the count a
    collection of the same selection finds (each test module of tests/cuda contributes; none may be skipped,
    fail, error, or go missing)."""
    collected = simulator_collected()
    assert collected >= 20, collected          # at least the 20 cudasim tests of tests/cuda when this was written
    assert passed(simulator_run()) == collected


@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", reason="already inside the simulator run")
def test_cuda_simulator_sample():
    assert passed(simulator_run("-k", SAMPLE)) == 2
