"""The clusters a sweep computes on, started for the place :func:`~meanfield.sweeps.config.where.where_to_compute`
chose: a local cluster of single-threaded worker processes, a running scheduler, SLURM jobs through
dask-jobqueue (:mod:`.slurm`), or a client the caller made (e.g. inside one SLURM allocation,
:func:`~meanfield.sweeps.execute.slurm.slurm_runner`); and a local cluster of one worker per GPU
(:func:`gpu_cluster`). :func:`connect` closes only what it started. The scheduler and the workers of an external
cluster need meanfield installed.
"""
from __future__ import annotations

import logging
import os
import time
from contextlib import contextmanager
from typing import NamedTuple

from ...errors import BackendError
from ..config.where import Where
from .slurm import ALLOCATOR_ENV, WORKER_ENV, SlurmJobs, dashboard_link
from .watchdog import Watchdog


class Connection(NamedTuple):
    """A client, the number of workers to plan for, and the watchdog (None for a local cluster, which
    replaces its own dead workers)."""

    client: object
    workers: int
    watchdog: Watchdog | None


def spawned_with_allocator():
    """dask config under which nannies start their worker processes with :data:`~.slurm.ALLOCATOR_ENV` in
    the environment they start with (``distributed.nanny.pre-spawn-environ``; a nanny's ``env`` is applied
    after the process started, too late for the C library's allocator)."""
    import dask
    return dask.config.set({"distributed.nanny.pre-spawn-environ":
                            {**dask.config.get("distributed.nanny.pre-spawn-environ"), **ALLOCATOR_ENV}})


def local_cluster(workers: int):
    """A LocalCluster of ``workers`` single-threaded worker processes, each of which leaves the terminal's process
    group as it starts (:func:`dask_setup`), started with :data:`~.slurm.WORKER_ENV`."""
    from dask.distributed import LocalCluster
    with spawned_with_allocator():
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
def connect(where: Where):
    """Yield a :class:`Connection` to ``where``; close only what was started here (SLURM: cancel every job
    submitted)."""
    import dask
    from dask.distributed import Client
    spec = where.cluster
    if where.kind == "client":
        c = where.client
        yield Connection(c, max(1, len(c.scheduler_info()["workers"])), Watchdog(c, spec.patience))
    elif where.kind == "scheduler":
        with Client(where.scheduler) as c:
            yield Connection(c, max(1, len(c.scheduler_info()["workers"])), Watchdog(c, spec.patience))
    elif where.kind == "slurm":
        jobs = SlurmJobs(spec, where.jobs)
        try:
            with Client(jobs.cluster) as c, dask.config.set(dashboard_link(spec)):
                yield Connection(c, where.workers, Watchdog(c, spec.patience, jobs, spec.lifetime))
        finally:
            jobs.close()
    else:
        with local_cluster(where.workers) as cluster, Client(cluster) as c:
            yield Connection(c, len(cluster.workers), None)


def gpu_cluster(n_gpus: int | None = None, **kwargs):
    """A local Dask cluster with one single-threaded worker per GPU, each pinned by
    :func:`~meanfield.kernels.cuda.gpu_worker_env`.

    Uses ``dask_cuda.LocalCUDACluster`` when installed, otherwise a ``distributed.SpecCluster`` of Nannies
    with a per-worker environment. ``n_gpus`` defaults to every visible device.
    """
    from ...kernels.cuda import gpu_worker_env, list_devices
    n_gpus = len(list_devices()) if n_gpus is None else int(n_gpus)
    if n_gpus < 1:
        raise BackendError("gpu_cluster: no GPU to put a worker on")
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        pass
    else:
        visible = ",".join(gpu_worker_env(i)["CUDA_VISIBLE_DEVICES"] for i in range(n_gpus))
        with spawned_with_allocator():
            return LocalCUDACluster(CUDA_VISIBLE_DEVICES=visible, threads_per_worker=1, **kwargs)
    from distributed import Nanny, Scheduler, SpecCluster
    workers = {f"gpu-{i}": {"cls": Nanny, "options": {"nthreads": 1, "env": gpu_worker_env(i)}}
               for i in range(n_gpus)}
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": kwargs.pop("dashboard_address", ":0")}}
    with spawned_with_allocator():
        return SpecCluster(workers=workers, scheduler=scheduler, **kwargs)

def arrivals(futures: list, stop, poll: float):
    """The results of ``futures`` as they complete; every ``poll`` seconds without one, ``stop`` (an Event, set on
    Ctrl-C or SIGTERM) is looked at and raises KeyboardInterrupt when set."""
    from dask.distributed import as_completed

    pending = as_completed(futures)
    while not pending.is_empty():
        if stop.is_set():
            raise KeyboardInterrupt
        if not pending.has_ready():
            time.sleep(poll)
            continue
        for future in pending.next_batch(block=False):
            yield future.result()


__all__ = ["connect", "local_cluster", "gpu_cluster", "Connection"]
