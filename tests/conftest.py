import os
import pathlib

import numpy as np
import pytest

DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data():
    """Load a reference fixture from tests/data (copied from the reference runs, see tests/data/README.md)."""
    def load(name):
        return np.load(DATA / name)
    return load


# --- tiers (README, "Run the tests") ---------------------------------------------------------------------------
#: What a test may start, by tier: ``unit`` (the default) no process, no Dask client, no cluster, no long run;
#: ``integration`` in-process Dask, the command line called in-process and long runs in process; ``system``
#: subprocesses, clusters, SLURM, the README and install runs, the CUDA simulator's own process. A test or module
#: says its tier with a marker (``pytestmark = pytest.mark.system``); ``slow`` is orthogonal (left out of the fast
#: loop).
TIERS = ("unit", "integration", "system")
#: Fixtures that start a cluster of processes for the session (tests/sweeps/conftest.py): their tests are system.
CLUSTER_FIXTURES = {"external_cluster", "client"}
#: Fixtures of an in-process Dask cluster (a module's, tests/sweeps): their tests are integration.
LOCAL_CLUSTER_FIXTURES = {"local_client"}
#: Folders whose tests default to another tier than unit: the command line, called in-process.
FOLDER_TIERS = {"cli": "integration"}


def pytest_itemcollected(item):
    """Each test's tier, as it is collected (before ``-m`` reads the markers); the system tier is also slow."""
    fixtures = set(getattr(item, "fixturenames", ()))
    if item.get_closest_marker("dask") or item.get_closest_marker("slurm") or CLUSTER_FIXTURES & fixtures:
        item.add_marker("system")
    elif LOCAL_CLUSTER_FIXTURES & fixtures:
        item.add_marker("integration")
    elif not any(item.get_closest_marker(tier) for tier in TIERS):
        item.add_marker(FOLDER_TIERS.get(pathlib.Path(item.path).parent.name, "unit"))
    if item.get_closest_marker("system"):   # processes, clusters, fresh installs: out of the fast loop (CI runs them)
        item.add_marker("slow")


#: Programs a unit test may still run: reads of the system's and the checkout's metadata that libraries make on
#: import (`uname -p` for platform.processor(), numba and Dask; `ldconfig -p` for numba.cuda) and a result file's
#: provenance (git), not processes a test relies on.
METADATA_PROGRAMS = {"git", "ldconfig", "uname"}


class TierViolation(RuntimeError):
    """A unit-tier test started a process or a Dask client: it belongs to another tier."""


@pytest.fixture(autouse=True)
def unit_tier_guard(request, monkeypatch):
    """A unit-tier test that starts a process (subprocess, multiprocessing, os.fork, os.system) or a Dask client
    fails at that call, naming the tiers it could move to (tests/test_tier_guard.py)."""
    if request.node.get_closest_marker("unit") is None:
        yield
        return

    def refuse(what):
        def call(*args, **kwargs):
            raise TierViolation(f"{request.node.nodeid} is a unit-tier test and started {what}: mark it "
                                f"pytest.mark.integration (in-process Dask, CLI) or pytest.mark.system (processes)")
        return call

    import multiprocessing.process
    import subprocess
    popen_init = subprocess.Popen.__init__

    def popen(self, args, *rest, **options):
        program = args[0] if isinstance(args, (list, tuple)) else str(args).split()[0]
        if os.path.basename(str(program)) in METADATA_PROGRAMS:
            return popen_init(self, args, *rest, **options)
        return refuse(f"a subprocess ({program})")()

    monkeypatch.setattr(subprocess.Popen, "__init__", popen)
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", refuse("a multiprocessing process"))
    monkeypatch.setattr(os, "fork", refuse("a forked process"))
    monkeypatch.setattr(os, "system", refuse("a shell (os.system)"))       # it forks without subprocess.Popen
    # an in-process cluster starts no process: its client is refused
    import distributed
    monkeypatch.setattr(distributed.Client, "__init__", refuse("a Dask client"))
    yield
