"""Shared helpers of the CUDA backend tests.

The ``cudasim`` tests run in their own process with ``NUMBA_ENABLE_CUDASIM=1`` set before numba is imported:

    NUMBA_ENABLE_CUDASIM=1 python -m pytest tests/cuda -m cudasim

Selecting them (``-m cudasim``) without the simulator enabled is a usage error, not a silent skip, so a CI
run that forgot the variable fails instead of reporting skipped tests as a pass. Otherwise, without the
simulator, they are deselected here (whatever ``-m`` says, e.g. the fast loop's ``-m "not slow"``), and
``test_simulator_suite.py`` runs them in a child process.
"""
import os

import pytest

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def pytest_collection_modifyitems(config, items):
    selected = [item for item in items if item.get_closest_marker("cudasim") is not None]
    if not selected or SIMULATOR:
        return
    if "cudasim" in (config.option.markexpr or "").replace("not cudasim", ""):
        raise pytest.UsageError("the cudasim tests need NUMBA_ENABLE_CUDASIM=1 set before numba is imported: "
                                "NUMBA_ENABLE_CUDASIM=1 python -m pytest tests/cuda -m cudasim")
    config.hook.pytest_deselected(items=selected)
    items[:] = [item for item in items if item.get_closest_marker("cudasim") is None]
