"""Running a sweep: the client loop. It opens (or resumes) the result file, plans the tasks (:mod:`.plan`),
submits them to a Dask cluster (:mod:`.cluster`), and writes each chunk as it arrives (:mod:`.store`), with a
progress bar and retries; Ctrl-C stops cleanly with every finished chunk stored.

Only the client writes the HDF5 file, chunk by chunk as results arrive, so an interrupted sweep keeps every
finished chunk and a later call computes only what is missing (docs/storage.md §3).
"""
from __future__ import annotations

import logging
import os
import sys
import time
import uuid

import numpy as np

from ..errors import StoreError
from ..progress import progress_bar
from .cluster import connect
from .plan import plan
from .provenance import now, record
from .runfile import RunSpec, load_run
from .store import (append_provenance, create_sweep, done_flags, mark_finished, open_sweep, points_done,
                    read_points, update_provenance, write_points)
from .tasks import compute_chunk, handoff_names

log = logging.getLogger(__name__)

#: Times a task is retried when it fails (worker loss is handled by the scheduler on top of this).
RETRIES = 3


def _open_output(run: RunSpec, out, resume, overwrite):
    """(open file, "create" or "resume")."""
    out = os.fspath(out)
    exists = os.path.exists(out)
    if resume and not exists:
        raise StoreError(f"output {out!r} does not exist: there is nothing to resume (leave out --resume to start it)")
    if exists and not overwrite:
        if resume is False:
            raise StoreError(f"output {out!r} exists: resume it (--resume), overwrite it (--force) or choose another")
        return open_sweep(out, run), "resume"
    return create_sweep(out, run, overwrite=overwrite), "create"


def _where(run: RunSpec, client, scheduler, slurm) -> str:
    if client is not None:
        return "client"
    if scheduler:
        return f"scheduler {scheduler}"
    return "slurm" if slurm or run.cluster.get("kind") == "slurm" else "local"


def _worker_hosts(c) -> list:
    return sorted({w.get("host", "?") for w in c.scheduler_info().get("workers", {}).values()})


def sweep(run, out, *, client=None, scheduler: str | None = None, slurm: bool = False, workers: int | None = None,
          resume: bool | None = None, overwrite: bool = False, progress: bool = True, retries: int = RETRIES,
          callback=None) -> str:
    """Run a sweep and write it to ``out`` (HDF5, docs/storage.md §3); returns the path.

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

    run = run if isinstance(run, RunSpec) else load_run(run)
    total = run.n_points
    if os.path.exists(out) and not overwrite and resume is not False and points_done(out, run) == total:
        if progress:                         # checked read-only: a finished file is not even opened for writing
            print(f"meanfield sweep: {os.fspath(out)} is already complete ({total} points): nothing to do",
                  file=sys.stderr)
        return os.fspath(out)
    f, action = _open_output(run, out, resume, overwrite)
    hosts = set()
    try:
        done = done_flags(f)
        with connect(run, client, scheduler, slurm, workers) as (c, n_workers):
            if progress and getattr(c, "dashboard_link", None):
                print(f"meanfield sweep: dashboard {c.dashboard_link}", file=sys.stderr)
            where, worker_hosts = _where(run, client, scheduler, slurm), _worker_hosts(c)
            log.debug("%s %s: %d of %d points to compute on %s (%d workers, hosts %s)", action, os.fspath(out),
                      int((~done).sum()), total, where, n_workers, worker_hosts)
            append_provenance(f, record(action, cluster=where, workers=n_workers, worker_hosts=worker_hosts,
                                        points_to_compute=int((~done).sum())))
            started = time.perf_counter()
            tasks = plan(run, done, n_workers)
            resumed_parents = sorted({int(p) for t in tasks for p in t.parents if p >= 0 and done[p]})
            handoff = dict(zip(("att", "pe", "depth"), handoff_names(run)))
            from_file = {"index": np.array(resumed_parents, dtype=np.int64),
                         **read_points(f, handoff.values(), resumed_parents)}
            tag = uuid.uuid4().hex[:8]
            futures = []
            for n, task in enumerate(tasks):
                sources = [futures[d] for d in task.deps] + ([from_file] if resumed_parents else [])
                futures.append(c.submit(compute_chunk, run, task.indices, task.parents, *sources,
                                        key=f"meanfield-{run.name}-{tag}-{n}", retries=retries, pure=False))
            pending = as_completed(futures)
            futures = {future.key: future for future in futures}     # dropped once written: frees the workers
            bar = progress_bar(total, run.name, enabled=progress, initial=int(done.sum()),
                               waiting=f"starting {n_workers} workers, compiling")
            written = int(done.sum())
            try:
                for future in pending:
                    result = future.result()
                    hosts.add(result["host"])
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
            log.debug("%d points in %.1f s", written - int(done.sum()), time.perf_counter() - started)
        mark_finished(f)
    except KeyboardInterrupt:
        written = int(done_flags(f).sum())
        print(f"meanfield sweep: interrupted; {written}/{run.n_points} points are stored in {out}; run again to "
              "resume", file=sys.stderr)
        raise
    finally:
        if hosts:                      # the record of this session: where its points were computed, and until when
            update_provenance(f, computed_on=sorted(hosts), ended=now(), points_done=int(done_flags(f).sum()))
        f.close()
    return os.fspath(out)


__all__ = ["sweep", "RETRIES"]
