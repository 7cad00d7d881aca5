"""Where a sweep computes: a local cluster of single-threaded worker processes, a running scheduler, or SLURM
through dask-jobqueue. The only module that builds clusters; :func:`connect` closes only what it started.

The scheduler and the workers of an external cluster (``--scheduler``, SLURM) need meanfield installed.
"""
from __future__ import annotations

import logging
import os
from contextlib import contextmanager

from ..errors import ConfigError
from .runfile import RunSpec

#: Environment of worker processes: one numba/BLAS thread each, so processes x threads = cores.
WORKER_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "OPENBLAS_NUM_THREADS": "1"}


def _seconds(text: str, key: str) -> int:
    try:
        parts = [int(p) for p in str(text).split(":")]
    except ValueError:
        parts = []
    if not 1 <= len(parts) <= 3:
        raise ConfigError(f"cluster.{key} = {text!r} is not allowed: use HH:MM:SS")
    return sum(p * 60 ** (len(parts) - 1 - i) for i, p in enumerate(parts))


def slurm_kwargs(table: dict) -> dict:
    """dask-jobqueue ``SLURMCluster`` arguments from a run file's ``[cluster]`` table.

    One single-threaded worker process per core; workers get ``--lifetime`` (default: walltime - 5 min, or
    90 % for short walltimes) so they are replaced before SLURM kills them mid-task.
    """
    cores = int(table.get("cores", 1))
    walltime = table.get("walltime", "01:00:00")
    total = _seconds(walltime, "walltime")
    lifetime = table.get("lifetime", f"{total - 300 if total > 600 else int(0.9 * total)}s")
    from dask.utils import parse_timedelta
    if parse_timedelta(lifetime) >= total:
        raise ConfigError(f"cluster.lifetime = {lifetime!r} is not allowed: must be shorter than walltime = {walltime}")
    kwargs = {"cores": cores, "processes": int(table.get("processes", cores)), "memory": table.get("memory", "4GB"),
              "walltime": walltime, "job_script_prologue": [f"export {k}={v}" for k, v in WORKER_ENV.items()],
              "worker_extra_args": ["--lifetime", str(lifetime), "--lifetime-stagger",
                                    str(table.get("lifetime_stagger", "2m")), "--lifetime-restart"]}
    for key, target in (("queue", "queue"), ("account", "account"), ("interface", "interface"),
                        ("local_directory", "local_directory"), ("job_extra", "job_extra_directives")):
        if key in table:
            kwargs[target] = table[key]
    return kwargs


def slurm_cluster(table: dict):
    """A dask-jobqueue SLURMCluster for the ``[cluster]`` table (``pip install dask-jobqueue``)."""
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:
        raise ConfigError("cluster.kind = 'slurm' needs dask-jobqueue: pip install 'meanfield[cluster]'") from None
    return SLURMCluster(**slurm_kwargs(table))


def local_cluster(workers: int | None = None):
    """A LocalCluster of single-threaded worker processes (default: one per available core)."""
    from dask.distributed import LocalCluster
    workers = workers or len(os.sched_getaffinity(0))
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address="127.0.0.1:0", env=dict(WORKER_ENV), silence_logs=logging.CRITICAL)   # task errors reach the client as exceptions; this hides shutdown noise


@contextmanager
def connect(run: RunSpec, client, scheduler, slurm, workers):
    """Yield (client, expected workers); close only what was started here."""
    from dask.distributed import Client
    if client is not None:
        yield client, max(1, len(client.scheduler_info().get("workers", {})))
        return
    table = run.cluster
    if scheduler:
        with Client(scheduler) as c:
            yield c, max(1, len(c.scheduler_info().get("workers", {})))
        return
    if slurm or table.get("kind") == "slurm":
        cluster = slurm_cluster(table)
        jobs = workers or int(table.get("workers", 1))
        cluster.scale(jobs=jobs)
        count = jobs * int(table.get("processes", table.get("cores", 1)))
    else:
        cluster = local_cluster(workers or table.get("workers"))
        count = len(cluster.workers)
    with cluster, Client(cluster) as c:
        yield c, count
