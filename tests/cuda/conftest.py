"""Shared helpers of the CUDA backend tests.

The ``cudasim`` tests run in their own process with ``NUMBA_ENABLE_CUDASIM=1`` set before numba is imported:

    NUMBA_ENABLE_CUDASIM=1 python -m pytest tests/cuda -m cudasim

Selecting them (``-m cudasim``) without the simulator enabled is a usage error, not a silent skip, so a CI
run that forgot the variable fails instead of reporting skipped tests as a pass.
"""
import os

import pytest

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def pytest_collection_modifyitems(config, items):
    selected = [item for item in items if item.get_closest_marker("cudasim") is not None]
    if selected and not SIMULATOR and "cudasim" in (config.option.markexpr or "").replace("not cudasim", ""):
        raise pytest.UsageError("the cudasim tests need NUMBA_ENABLE_CUDASIM=1 set before numba is imported: "
                                "NUMBA_ENABLE_CUDASIM=1 python -m pytest tests/cuda -m cudasim")
