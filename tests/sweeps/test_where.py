"""Where a sweep computes, decided once (meanfield.sweeps.config.where): the order client > scheduler > SLURM >
local, who asked for SLURM, and the worker count each place plans for."""
from __future__ import annotations

import os

import pytest

from meanfield.errors import ConfigError
from meanfield.sweeps.config.clusterspec import ClusterSpec
from meanfield.sweeps.config.where import Place, where_to_compute

SLURM_TABLE = ClusterSpec(kind="slurm", jobs=2, processes=3)


def test_a_client_wins_over_everything_else():
    client = object()
    where = where_to_compute(SLURM_TABLE, Place(client=client, scheduler="tcp://h:1", slurm=True, workers=5))
    assert (where.kind, where.client, where.workers) == ("client", client, None)


def test_a_scheduler_wins_over_slurm_and_is_described_by_its_address():
    where = where_to_compute(SLURM_TABLE, Place(scheduler="tcp://h:1", workers=5))
    assert (where.kind, where.workers, where.describe()) == ("scheduler", None, "scheduler tcp://h:1")


def test_slurm_from_the_table_plans_jobs_times_processes():
    where = where_to_compute(SLURM_TABLE)
    assert (where.kind, where.jobs, where.workers, where.asked_by) == ("slurm", 2, 6, "cluster.kind = 'slurm'")


def test_slurm_from_the_flag_takes_workers_as_jobs():
    where = where_to_compute(ClusterSpec(processes=4), Place(slurm=True, workers=5))
    assert (where.kind, where.jobs, where.workers, where.asked_by) == ("slurm", 5, 20, "--slurm")


def test_local_workers_come_from_the_argument_then_the_table_then_the_cores():
    assert where_to_compute(ClusterSpec(workers=3), Place(workers=2)).workers == 2
    assert where_to_compute(ClusterSpec(workers=3)).workers == 3
    where = where_to_compute(ClusterSpec())
    assert (where.kind, where.workers) == ("local", len(os.sched_getaffinity(0)))


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "two"])
def test_a_bad_worker_count_names_the_key(workers):
    with pytest.raises(ConfigError, match="workers"):
        where_to_compute(ClusterSpec(), Place(workers=workers))
