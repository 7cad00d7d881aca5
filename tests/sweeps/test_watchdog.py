"""The sweep's watchdog on stand-ins for a Dask client and the SLURM jobs: what it shows, when and with which
line it stops a sweep (the real SLURM cases are in test_slurm.py)."""
from __future__ import annotations

import time

import pytest

from meanfield.errors import ClusterError
from meanfield.sweeps.execute import watchdog as watchdog_module
from meanfield.sweeps.execute.watchdog import Watchdog


class Client:
    """A Dask client stand-in with ``workers`` workers."""

    def __init__(self, workers=0):
        self.workers = workers

    def scheduler_info(self):
        return {"workers": {f"tcp://127.0.0.1:{4000 + i}": {} for i in range(self.workers)}}


class Jobs:
    """SlurmJobs stand-in: two jobs pending for ``reason``; ``never`` is SLURM's final verdict (or None)."""

    def __init__(self, reason="Priority", never=None):
        self.reason, self.never, self.polls = reason, never, 0

    def poll(self):
        self.polls += 1

    def never_starts(self):
        return self.never

    def describe(self):
        return f"jobs 0 running, 2 pending ({self.reason})"

    def hint(self):
        return ""


@pytest.fixture(autouse=True)
def look_every_time(monkeypatch):
    monkeypatch.setattr(watchdog_module, "WATCH_POLL", 0.0)


def test_status_names_workers_and_jobs():
    dog = Watchdog(Client(3), patience=60, jobs=Jobs("Resources"))
    assert dog.check() == "workers 3, jobs 0 running, 2 pending (Resources)"
    assert Watchdog(Client(2), patience=60).check() == "workers 2"


def test_no_worker_for_the_patience_is_one_line_with_slurms_reason():
    dog = Watchdog(Client(0), patience=0.2, jobs=Jobs("Priority"))
    dog.check()
    time.sleep(0.3)
    with pytest.raises(ClusterError) as err:
        dog.check()
    line = str(err.value)
    assert "\n" not in line and "cluster.patience = 0.2 s" in line
    assert "no Dask worker connected" in line and "2 pending (Priority)" in line


def test_a_finished_chunk_restarts_the_patience():
    dog = Watchdog(Client(0), patience=0.3)
    for _ in range(3):
        time.sleep(0.2)
        dog.progressed()
        dog.check()                                  # 0.2 s since the last chunk each time: no error


def test_workers_that_finish_nothing_point_at_the_lifetime():
    dog = Watchdog(Client(4), patience=0.1, jobs=Jobs(), lifetime=45)
    time.sleep(0.2)
    with pytest.raises(ClusterError, match=r"4 worker\(s\) alive but none finished a chunk.*lifetime \(45 s\)"):
        dog.check()


def test_slurms_final_verdict_stops_at_once():
    dog = Watchdog(Client(0), patience=3600, jobs=Jobs(never="SLURM can never start this sweep's jobs: ..."))
    with pytest.raises(ClusterError, match="can never start"):
        dog.check()
