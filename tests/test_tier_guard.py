"""The unit tier's guard (tests/conftest.py, unit_tier_guard) refuses, inside a unit test, every way this suite could
start a process or a Dask client — so a test that starts one cannot sit in the fast unit loop unnoticed. Each call
below would start one without the guard; the metadata programs libraries run on import stay allowed."""
import multiprocessing
import os
import subprocess

import pytest

from .conftest import TierViolation


@pytest.mark.parametrize("start", [
    lambda: subprocess.run(["true"]),
    lambda: os.system("true"),
    lambda: os.fork(),
    lambda: multiprocessing.Process(target=print).start(),
], ids=["subprocess", "os.system", "os.fork", "multiprocessing"])
def test_a_unit_test_cannot_start_a_process(start):
    with pytest.raises(TierViolation, match="unit-tier test and started"):
        start()


def test_a_unit_test_cannot_start_a_dask_client():
    from distributed import Client
    with pytest.raises(TierViolation, match="a Dask client"):
        Client(processes=False)


def test_the_metadata_programs_stay_allowed():
    assert subprocess.run(["uname", "-s"], capture_output=True, text=True).returncode == 0
