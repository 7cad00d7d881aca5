"""The sweep's watchdog on stand-ins for a Dask client and the SLURM jobs: what it shows, when and with which
line it stops a sweep (the real SLURM cases are in test_slurm.py)."""
from __future__ import annotations

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


class Clock:
    """The watchdog's ``time`` module: ``monotonic()`` moves only when a test calls ``advance``."""

    def __init__(self):
        self.now = 5000.0                       # dyadic steps from here add exactly

    def monotonic(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(watchdog_module, "time", fake)
    return fake


@pytest.fixture
def look_every_time(monkeypatch):
    monkeypatch.setattr(watchdog_module, "WATCH_POLL", 0.0)


@pytest.mark.usefixtures("look_every_time")
def test_status_names_workers_and_jobs():
    dog = Watchdog(Client(3), patience=60, jobs=Jobs("Resources"))
    assert dog.check() == "workers 3, jobs 0 running, 2 pending (Resources)"
    assert Watchdog(Client(2), patience=60).check() == "workers 2"


@pytest.mark.usefixtures("look_every_time")
def test_no_worker_for_the_patience_is_one_line_with_slurms_reason(clock):
    dog = Watchdog(Client(0), patience=0.25, jobs=Jobs("Priority"))
    dog.check()
    clock.advance(0.25)
    dog.check()                                  # exactly the patience: not yet past it
    clock.advance(2.0)
    with pytest.raises(ClusterError) as err:
        dog.check()
    line = str(err.value)
    assert "\n" not in line and "cluster.patience = 0.25 s" in line
    assert "no chunk finished for 2 s" in line               # 2.25 s idle, printed to the second
    assert "no Dask worker connected for 2 s" in line and "2 pending (Priority)" in line


@pytest.mark.usefixtures("look_every_time")
def test_a_finished_chunk_restarts_the_patience(clock):
    dog = Watchdog(Client(0), patience=0.25)
    for _ in range(3):
        clock.advance(0.25)                      # the patience since the last chunk each time: no error
        dog.progressed()
        dog.check()
    clock.advance(0.25)
    dog.check()
    clock.advance(0.125)                         # 0.375 s since the last chunk, 1 s since the start
    with pytest.raises(ClusterError, match="no chunk finished for 0 s"):
        dog.check()


@pytest.mark.usefixtures("look_every_time")
def test_workers_that_finish_nothing_point_at_the_lifetime(clock):
    dog = Watchdog(Client(4), patience=0.125, jobs=Jobs(), lifetime=45)
    clock.advance(0.25)
    with pytest.raises(ClusterError, match=r"4 worker\(s\) alive but none finished a chunk.*lifetime \(45 s\)"):
        dog.check()


def test_the_scheduler_is_asked_once_per_watch_poll(clock):
    """Between two looks (WATCH_POLL s apart) check() returns the last status without asking the scheduler or
    SLURM again, and without raising: an overdue patience shows at the next look."""
    jobs = Jobs()
    poll = watchdog_module.WATCH_POLL
    dog = Watchdog(Client(0), patience=1.5 * poll, jobs=jobs)
    clock.advance(poll)
    assert dog.check() == "workers 0, jobs 0 running, 2 pending (Priority)" and jobs.polls == 1
    dog.client.workers = 2
    clock.advance(0.75 * poll)                   # past the patience, but not yet time to look again
    assert dog.check() == "workers 0, jobs 0 running, 2 pending (Priority)" and jobs.polls == 1
    clock.advance(0.25 * poll)
    with pytest.raises(ClusterError, match="2 worker"):
        dog.check()
    assert jobs.polls == 2


@pytest.mark.usefixtures("look_every_time")
def test_slurms_final_verdict_stops_at_once():
    dog = Watchdog(Client(0), patience=3600, jobs=Jobs(never="SLURM can never start this sweep's jobs: ..."))
    with pytest.raises(ClusterError, match="can never start"):
        dog.check()
