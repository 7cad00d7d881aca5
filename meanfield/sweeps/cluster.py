"""Where a sweep computes: a local cluster of single-threaded worker processes, a running scheduler, SLURM jobs
through dask-jobqueue (:mod:`.slurm`), or a client the caller made (e.g. inside one SLURM allocation,
:func:`~meanfield.sweeps.slurm.slurm_runner`). The only module that chooses a cluster; :func:`connect` closes
only what it started.

SLURM is used when the caller says so: ``slurm=True`` (``--slurm``) or ``kind = "slurm"`` in ``[cluster]``
(:mod:`.clusterspec`). The scheduler and the workers of an external cluster need meanfield installed.
"""
from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from typing import NamedTuple

from .runfile import RunSpec
from .slurm import WORKER_ENV, SlurmJobs, dashboard_link
from .watchdog import Watchdog


class Connection(NamedTuple):
    """A client, the number of workers to plan for, and the watchdog (None for a local cluster, which
    replaces its own dead workers)."""

    client: object
    workers: int
    watchdog: Watchdog | None


def local_cluster(workers: int | None = None):
    """A LocalCluster of single-threaded worker processes (default: one per available core), each of which
    leaves the terminal's process group as it starts (:func:`dask_setup`)."""
    from dask.distributed import LocalCluster
    workers = workers or len(os.sched_getaffinity(0))
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address="127.0.0.1:0", env=dict(WORKER_ENV), preload=[__name__],
                        silence_logs=logging.CRITICAL)   # task errors reach the client as exceptions


def dask_setup(worker) -> None:
    """Preload of a local worker process: a process group of its own, so that Ctrl-C in a terminal (which
    signals the whole foreground group) reaches only the client, which stops the sweep and closes the
    workers; they print no tracebacks of their own. A worker still ends with its client (dask watches the
    parent process)."""
    os.setpgid(0, 0)


@contextmanager
def connect(run: RunSpec, client=None, scheduler: str | None = None, slurm: bool = False, workers: int | None = None):
    """Yield a :class:`Connection`; close only what was started here (SLURM: cancel every job submitted)."""
    import dask
    from dask.distributed import Client
    spec = run.cluster_spec
    if client is not None:
        yield Connection(client, max(1, len(client.scheduler_info()["workers"])), Watchdog(client, spec.patience))
        return
    if scheduler:
        with Client(scheduler) as c:
            yield Connection(c, max(1, len(c.scheduler_info()["workers"])), Watchdog(c, spec.patience))
        return
    if slurm or spec.kind == "slurm":
        jobs = SlurmJobs(spec, workers)
        try:
            with Client(jobs.cluster) as c, dask.config.set(dashboard_link(spec)):
                yield Connection(c, jobs.workers, Watchdog(c, spec.patience, jobs, spec.lifetime))
        finally:
            jobs.close()
        return
    with local_cluster(workers or spec.workers) as cluster, Client(cluster) as c:
        yield Connection(c, len(cluster.workers), None)


__all__ = ["connect", "local_cluster", "Connection"]
