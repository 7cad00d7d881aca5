"""Fixtures of the sweep tests: tiny run files and an external Dask cluster (scheduler + two workers bound to
127.0.0.1, random ports, stopped by PID). Worker processes compile the numba kernel once per process."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from .helpers import BIN


@pytest.fixture
def write_run(tmp_path):
    """Write run-file text to tmp_path/<name>.toml and return the path."""
    def write(text, name="run"):
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        return str(path)
    return write


def _wait_for(path, proc):
    """Until ``proc`` (the scheduler) has written ``path``; RuntimeError if it exits first (a hang is stopped by
    pytest-timeout, not by a clock here)."""
    while not os.path.exists(path):
        if proc.poll() is not None:
            raise RuntimeError(f"the scheduler exited ({proc.returncode}) before writing {path}")
        time.sleep(0.1)


def _stop(proc):
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="session")
def external_cluster(tmp_path_factory):
    """`dask scheduler` + two `dask worker` processes on 127.0.0.1; yields the scheduler address."""
    base = tmp_path_factory.mktemp("dask")
    sched_file = str(base / "scheduler.json")
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    procs = [subprocess.Popen([f"{BIN}/dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--dashboard-address", "127.0.0.1:0", "--scheduler-file", sched_file],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        _wait_for(sched_file, procs[0])
        for n in range(2):
            procs.append(subprocess.Popen(
                [f"{BIN}/dask", "worker", "--scheduler-file", sched_file, "--host", "127.0.0.1", "--nthreads", "1",
                 "--no-nanny", "--dashboard-address", "127.0.0.1:0", "--local-directory", str(base / f"w{n}")],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        address = json.load(open(sched_file))["address"]
        from dask.distributed import Client
        with Client(address) as client:
            client.wait_for_workers(2)
        yield address
    finally:
        for proc in reversed(procs):
            _stop(proc)


@pytest.fixture(scope="session")
def client(external_cluster):
    from dask.distributed import Client
    with Client(external_cluster) as c:
        yield c
