"""Parameter sweeps on Dask: chunking, continuation chains, retries, resume and progress (issue 3;
design.md, Data flow and Storage).

Chunks of grid points are Dask tasks (:func:`compute_chunk`): each runs the batched kernel
(:func:`~meanfield.simulate.simulate_batch`) and the per-point reductions (:mod:`meanfield.reductions`) and
returns numpy arrays. Only the client writes the HDF5 file (:mod:`meanfield.store`), chunk by chunk as results
arrive, so an interrupted sweep keeps every finished chunk and a later call computes only what is missing.
A point's results do not depend on the other points of its batch, hence nothing depends on the chunk size,
the number of workers or the completion order.

Continuation (spec §4.2, the reference's ``--chain``): a point's start is the hand-off state of its parent,
its neighbour along the continuation axis. Points are grouped into waves by their distance from the chain
roots; a task of wave d depends on the tasks of wave d-1 that hold its points' parents, and many chains (every
line of a 2-D grid, ``chains`` segments per line) run side by side.

The scheduler and the workers of an external cluster (``--scheduler``, SLURM) need meanfield installed.
"""
from __future__ import annotations

import datetime
import logging
import math
import os
import sys
import uuid
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .errors import ConfigError, StoreError
from .runfile import RunSpec, load_run

#: Times a task is retried when it fails (worker loss is handled by the scheduler on top of this).
RETRIES = 3
#: Environment of worker processes: one numba/BLAS thread each, so processes x threads = cores.
WORKER_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "OPENBLAS_NUM_THREADS": "1"}


# --- worker side --------------------------------------------------------------------------------------

def _handoff_names(run: RunSpec) -> tuple:
    prefix = "pre" if run.continuation is not None and run.continuation.pre_steps else "final"
    return tuple(f"{prefix}_{part}" for part in ("att", "pe", "depth"))


def _starts(run: RunSpec, model, parents, sources):
    """Start States of a chunk: the run's base start, or the parent's hand-off found in ``sources``."""
    from .model import State
    base = run.base_state(model) or model.checkpoint
    if np.all(parents < 0):
        return base
    att, pe, depth = _handoff_names(run)
    lookup = {}
    for source in sources:
        for i, flat in enumerate(source["index"]):
            lookup[int(flat)] = (source, i)
    starts = []
    for parent in parents:
        if parent < 0:
            starts.append(base)
            continue
        source, i = lookup[int(parent)]
        pe_window = source[pe][i] if pe in source else np.zeros((model.context, 0))
        starts.append(State(att=source[att][i, :int(source[depth][i])], pe=pe_window))
    return starts


#: Recorded rows a GPU sweep copies back per point to measure the classification evidence (CPU: all rows).
GPU_CLASSIFY_ROWS = 10_000


def finite_chunk(run: RunSpec, indices) -> dict:
    """The points ``indices`` of a run with a ``[finite]`` table (issue 6, spec §5.1, §5.3).

    Points are grouped by N_se (the last grid axis) and each group is one
    :func:`~meanfield.finite.simulate_finite_batch` call with the groups' parameter values; replica r draws
    from the stream (seed, r) at every point, so nothing depends on the chunking. Per point:
    ``finite_error``, the replica average of the mean |m^{o,se}_N − m^{o,se}_MF| over all features and the
    first ``aligned_steps`` aligned rows (finite rows L+1 .., as
    :meth:`~meanfield.finite.FiniteTrajectory.aligned_error`), ``finite_error_stderr`` (sample standard
    deviation over replicas / √R; NaN for R = 1), the reductions of the replica-mean observable over rows
    ``transient`` .. ``steps``-1 (every ``record.every``-th; finite convention, no factor w, spec §7.2), tails
    of the replica means, and evidence NaN / max_integral NaN / diverged_at -1 (no exponents or PID here).
    """
    import numba

    from .analysis.classify import EVIDENCE
    from .finite import simulate_finite_batch
    # A worker's WORKER_ENV (NUMBA_NUM_THREADS=1) reaches os.environ after numba was imported. The finite kernel
    # is loaded from numba's cache and starts the thread pool without re-reading the environment; the MF
    # kernel compiled next would then find the setting changed and fail. Read it now, before any thread starts.
    numba.config.reload_config()
    from .reductions import reduce_points
    model, spec = run.model, run.finite
    indices = np.asarray(indices, dtype=np.int64)
    n = len(indices)
    n_bits = run.n_bits(indices)
    first, window = model.context + 1, spec.aligned_steps
    rows = slice(run.transient, run.steps, run.record.every)
    error = np.full(n, np.nan)
    stderr = np.full(n, np.nan)
    names = set(run.record.observables) | {run.reductions.observable}
    series = {}
    for value in np.unique(n_bits):
        group = np.flatnonzero(n_bits == value)
        batch = simulate_finite_batch(model, int(value), run.steps, spec.replicas,
                                      parameters=run.parameters(indices[group]), seed=spec.seed, sampler=spec.sampler)
        diff = (batch.replica["mo_se"][:, :, first:first + window]
                - batch.mean_field["mo_se"][:, None, first:first + window])
        per_replica = np.abs(diff).mean(axis=(2, 3))                # (points, R)
        error[group] = per_replica.mean(axis=1)
        if spec.replicas > 1:
            stderr[group] = per_replica.std(axis=1, ddof=1) / np.sqrt(spec.replicas)
        for name in names:
            means = batch.replica[name][:, :, rows].mean(axis=1)     # (points, rows, M)
            series.setdefault(name, np.empty((n,) + means.shape[1:]))[group] = means
    out = {"index": indices, "finite_error": error, "finite_error_stderr": stderr}
    out.update(reduce_points(np.ascontiguousarray(series[run.reductions.observable]), run.reductions))
    out["evidence"] = np.full((n, len(EVIDENCE)), np.nan)
    out["max_integral"] = np.full(n, np.nan)
    out["diverged_at"] = np.full(n, -1, dtype=np.int64)
    if run.record.tail:
        for name in run.record.observables:
            out[f"tail_{name}"] = series[name][:, -run.record.tail:]
    return out


def compute_chunk(run: RunSpec, indices, parents, *sources) -> dict:
    """Simulate and reduce the grid points ``indices`` (flat, C order); a Dask task.

    ``parents`` holds, per point, the flat index of the point whose hand-off state it starts from (-1: the
    run's base start); ``sources`` are earlier chunk results (or arrays read back from the file) holding
    those hand-off states. Returns the per-point arrays of :func:`meanfield.store.sweep_layout` and ``index``.
    A run with a ``[finite]`` table runs the finite-N network instead (:func:`finite_chunk`, issue 6).
    """
    if run.finite is not None:
        return finite_chunk(run, indices)
    from .reductions import reduce_points
    from .simulate import simulate_batch
    from .sweep_analysis import point_evidence
    model = run.model
    indices = np.asarray(indices, dtype=np.int64)
    params = run.parameters(indices)
    start = _starts(run, model, np.asarray(parents, dtype=np.int64), sources)
    out = {"index": indices}
    if run.continuation is not None and run.continuation.pre_steps:
        pre_steps = run.continuation.pre_steps
        pre = simulate_batch(model, pre_steps, pre_steps - 1, parameters=params, start=start, record=("att",),
                             backend=run.backend)
        out.update(pre_att=pre.final_att, pre_pe=pre.final_pe, pre_depth=pre.final_depth)
        start = [pre.final_state(i) for i in range(len(indices))]
    backend, reducer = run.backend, None
    if backend.startswith("cuda"):
        # reductions on the device; only a tail (for the tails stored and the classification) comes back
        from .kernels.cuda_reductions import ReducingBackend
        backend = reducer = ReducingBackend(run.reductions, tail=max(run.record.tail, GPU_CLASSIFY_ROWS),
                                            dtype=run.backend.partition(":")[2] or "float64")
    result = simulate_batch(model, run.steps, run.transient, parameters=params, start=start,
                            lyapunov=run.lyapunov or False, record=run.recorded, record_every=run.record.every,
                            backend=backend)
    out.update(final_att=result.final_att, final_pe=result.final_pe, final_depth=result.final_depth)
    if run.lyapunov:
        out.update(lyapunov=result.lyapunov, lyapunov_stderr=result.lyapunov_stderr)
    observed = result.records[run.reductions.observable]
    out.update(reducer.reduced if reducer is not None else reduce_points(observed, run.reductions))
    out["evidence"] = point_evidence(observed, result.lyapunov, result.lyapunov_stderr)
    out["max_integral"] = result.max_integral
    out["diverged_at"] = result.diverged_at
    if run.record.tail:
        for name in run.record.observables:
            out[f"tail_{name}"] = result.records[name][:, -run.record.tail:]
    return out


# --- planning -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Task:
    """A chunk of points with, per point, its parent (-1: none) and the tasks holding those parents."""

    indices: np.ndarray
    parents: np.ndarray
    deps: tuple


def parents_of(run: RunSpec) -> np.ndarray:
    """Flat index of every point's continuation parent (-1 for chain roots and without continuation)."""
    parents = np.full(run.n_points, -1, dtype=np.int64)
    cont = run.continuation
    if cont is None:
        return parents
    axis = [a.name for a in run.axes].index(cont.axis)
    lines = np.moveaxis(np.arange(run.n_points).reshape(run.shape), axis, -1).reshape(-1, run.shape[axis])
    for segment in np.array_split(np.arange(run.shape[axis]), cont.chains):
        root = {"up": 0, "down": len(segment) - 1, "both": len(segment) // 2}[cont.direction]
        for k in range(len(segment)):
            if k != root:
                neighbour = segment[k - 1] if k > root else segment[k + 1]
                parents[lines[:, segment[k]]] = lines[:, neighbour]
    return parents


def plan(run: RunSpec, done: np.ndarray, workers: int = 1) -> list:
    """Tasks for the points not ``done`` (flat bool), in submission order (waves of the chains).

    Without continuation: chunks of ``run.chunk`` points in grid order. With it: wave by wave, each wave cut
    into ``min(chunk, ceil(wave / workers))``-point tasks so that every worker gets a share of each wave.
    """
    parents = parents_of(run)
    depth = np.zeros(run.n_points, dtype=np.int64)
    for _ in range(run.n_points):                       # depth = distance from the chain root
        has = parents >= 0
        new = np.where(has, depth[np.maximum(parents, 0)] + 1, 0)
        if np.array_equal(new, depth):
            break
        depth = new
    todo = np.flatnonzero(~done)
    owner = {}
    tasks = []
    for level in np.unique(depth[todo]):
        wave = todo[depth[todo] == level]
        size = run.chunk if run.continuation is None else min(run.chunk, max(1, math.ceil(len(wave) / workers)))
        for start in range(0, len(wave), size):
            indices = wave[start:start + size]
            deps = tuple(sorted({owner[int(p)] for p in parents[indices] if p >= 0 and not done[p]}))
            for i in indices:
                owner[int(i)] = len(tasks)
            tasks.append(Task(indices, parents[indices], deps))
    return tasks


# --- clusters -----------------------------------------------------------------------------------------

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
def _connect(run: RunSpec, client, scheduler, slurm, workers):
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


# --- the sweep ----------------------------------------------------------------------------------------

def _open_output(run: RunSpec, out, resume, overwrite):
    from .store import create_sweep, open_sweep
    out = os.fspath(out)
    if os.path.exists(out) and not overwrite:
        if resume is False:
            raise StoreError(f"output {out!r} exists: resume it (--resume), overwrite it (--force) or choose another")
        return open_sweep(out, run)
    return create_sweep(out, run, overwrite=overwrite)


def sweep(run, out, *, client=None, scheduler: str | None = None, slurm: bool = False, workers: int | None = None,
          resume: bool | None = None, overwrite: bool = False, progress: bool = True, retries: int = RETRIES,
          callback=None) -> str:
    """Run a sweep and write it to ``out`` (HDF5, see :func:`meanfield.store.sweep_layout`); returns the path.

    Parameters
    ----------
    run : RunSpec, path of a run file, or TOML text
    out : path of the HDF5 file. If it exists with the same run spec the sweep resumes (computes only the
        missing points; ``resume=False`` refuses instead); with another spec it is a StoreError.
    client, scheduler, slurm, workers : where to compute: an existing ``distributed.Client``, the address of a
        running scheduler, a SLURMCluster from ``[cluster]``, or (default) a LocalCluster of ``workers``
        single-threaded processes (default: one per core).
    overwrite : replace an existing file.
    progress : show a tqdm bar (points, points/s, ETA) and the dashboard address on stderr.
    retries : times a failed task is retried.
    callback : called as ``callback(done, total)`` after each chunk is written.
    """
    from dask.distributed import as_completed
    from tqdm import tqdm

    from .store import read_points, write_points
    run = run if isinstance(run, RunSpec) else load_run(run)
    f = _open_output(run, out, resume, overwrite)
    try:
        done = f["done"][...].reshape(-1).astype(bool)
        total = run.n_points
        if done.all():
            return os.fspath(out)
        with _connect(run, client, scheduler, slurm, workers) as (c, n_workers):
            if progress and getattr(c, "dashboard_link", None):
                print(f"meanfield sweep: dashboard {c.dashboard_link}", file=sys.stderr)
            tasks = plan(run, done, n_workers)
            resumed_parents = sorted({int(p) for t in tasks for p in t.parents if p >= 0 and done[p]})
            handoff = dict(zip(("att", "pe", "depth"), _handoff_names(run)))
            from_file = {"index": np.array(resumed_parents, dtype=np.int64),
                         **read_points(f, [n for n in handoff.values() if n in f], resumed_parents)}
            tag = uuid.uuid4().hex[:8]
            futures = []
            for n, task in enumerate(tasks):
                sources = [futures[d] for d in task.deps] + ([from_file] if resumed_parents else [])
                futures.append(c.submit(compute_chunk, run, task.indices, task.parents, *sources,
                                        key=f"meanfield-{run.name}-{tag}-{n}", retries=retries, pure=False))
            pending = as_completed(futures)
            futures = {future.key: future for future in futures}     # dropped once written: frees the workers
            bar = tqdm(total=total, initial=int(done.sum()), unit="pt", disable=not progress, smoothing=0.05,
                       desc=run.name, file=sys.stderr)
            written = int(done.sum())
            try:
                for future in pending:
                    result = future.result()
                    write_points(f, run, result["index"], result)
                    del futures[future.key]
                    written += len(result["index"])
                    bar.update(len(result["index"]))
                    if callback is not None:
                        callback(written, total)
            except BaseException:
                c.cancel(list(futures.values()))
                raise
            finally:
                bar.close()
            del futures
        f.attrs["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
    except KeyboardInterrupt:
        written = int(f["done"][...].sum())
        print(f"meanfield sweep: interrupted; {written}/{run.n_points} points are stored in {out}; run again to "
              "resume", file=sys.stderr)
        raise
    finally:
        f.close()
    return os.fspath(out)


__all__ = ["sweep", "compute_chunk", "finite_chunk", "plan", "parents_of", "Task", "slurm_kwargs", "slurm_cluster",
           "local_cluster", "RETRIES"]
