"""Checks of everything a sweep needs besides its run file, made before its output is created or touched
(:func:`check_sweep`): the worker count, the ``[cluster]`` table, the scheduler's reachability, the GPU of a
CUDA run, the memory one task needs and the output path. A problem is one line naming the key, the value
and what is allowed (:class:`~meanfield.errors.ConfigError`, :class:`~meanfield.errors.StoreError`,
:class:`~meanfield.errors.BackendError`).
"""
from __future__ import annotations

import importlib.util
import math
import os
import socket

from ...errors import ConfigError, StoreError
from ...model.layout import OBSERVABLES
from ..config.runfile import RunSpec
from ..config.where import Where
from ..store import check_output
from .tasks import GPU_CLASSIFY_ROWS

#: Seconds to wait for a scheduler to accept a connection.
SCHEDULER_TIMEOUT = 5.0


def check_cluster_table(where: Where) -> None:
    """SLURM (``--slurm`` or ``kind = "slurm"``) needs dask-jobqueue; the table's values were checked when the
    run file was loaded (:mod:`meanfield.sweeps.config.clusterspec`)."""
    if where.kind == "slurm" and importlib.util.find_spec("dask_jobqueue") is None:
        raise ConfigError(f"{where.asked_by} needs dask-jobqueue: pip install 'meanfield[cluster]'")


def check_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """A TCP scheduler address must accept a connection within ``timeout`` seconds."""
    from distributed.comm.addressing import parse_address, parse_host_port
    scheme, location = parse_address(address)
    if scheme not in ("tcp", "tls"):
        return
    try:
        host, port = parse_host_port(location)
    except ValueError:
        raise ConfigError(f"--scheduler {address!r} is not allowed: use tcp://HOST:PORT") from None
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ConfigError(f"--scheduler {address!r}: no scheduler answers there within {timeout:g} s ({reason}); "
                          "start one (`dask scheduler`) or correct the address") from None


def task_nbytes(run: RunSpec) -> int:
    """Bytes of the series one task of ``run.chunk`` points holds in memory (a lower bound of its need)."""
    model = run.model
    if run.finite is not None:                 # replicas + expectation + mean field, every observable
        per_point = (run.finite.replicas + 2) * run.steps * len(OBSERVABLES) * model.n_features
    else:
        rows = math.ceil((run.steps - run.transient) / run.record.every)
        if run.device == "cuda":               # reduced on the device; a tail comes back
            rows = min(rows, max(run.record.tail, GPU_CLASSIFY_ROWS))
        per_point = rows * len(run.recorded) * model.n_features
    return 8 * run.chunk * per_point


def _worker_memory(where: Where):
    """Memory per worker process of a local or SLURM cluster, or None when unknown (external cluster)."""
    if where.kind == "slurm":
        from dask.utils import parse_bytes
        return parse_bytes(where.cluster.memory) / where.cluster.processes
    if where.kind == "local":
        import psutil
        return psutil.virtual_memory().total / where.workers
    return None


def check_sweep(run: RunSpec, out, where: Where) -> str:
    """Everything :func:`meanfield.sweeps.execute.run.sweep` needs besides the run file, checked before the output
    is touched; returns the output path. See the module docstring."""
    check_cluster_table(where)
    if where.kind == "scheduler":
        check_scheduler(where.scheduler)
    if where.kind == "local" and run.device == "cuda":
        from ...kernels.cuda import require_cuda
        require_cuda()                         # BackendError without a GPU, before anything starts
    memory = _worker_memory(where)
    need = task_nbytes(run)
    if memory is not None and need > memory:
        raise ConfigError(f"chunk = {run.chunk} is not allowed: one task holds {need / 2 ** 30:.3g} GiB of series "
                          f"({run.chunk} points) and a worker has {memory / 2 ** 30:.3g} GiB; lower chunk, or "
                          "raise record.every")
    path = check_output(out, overwrite=True, make_dirs=True)
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise StoreError(f"output {path!r} exists but is not writable")
    return path


def check_workers(client, run: RunSpec) -> None:
    """A CUDA run needs a GPU on every worker connected to an external cluster (they may differ from this
    machine); BackendError from the first worker without one."""
    if run.device == "cuda":
        client.run(_require_gpu)


def _require_gpu() -> None:
    from ...kernels.cuda import require_cuda
    require_cuda()


__all__ = ["check_sweep", "check_workers", "check_cluster_table", "check_scheduler", "task_nbytes", "SCHEDULER_TIMEOUT"]
