"""Running a sweep: the client loop. It checks everything before touching the output (:mod:`.preflight`),
takes the output's writer lock (:mod:`.lock`), decides which file the points go to (:mod:`.output`), plans
the tasks (:mod:`.plan`), submits them to a Dask cluster (:mod:`.cluster`), and writes each chunk as it
arrives (:mod:`.store`), with a progress bar and retries; Ctrl-C stops cleanly with every finished chunk
stored.

Only the client writes the HDF5 file, chunk by chunk as results arrive, so an interrupted sweep keeps every
finished chunk and a later call computes only what is missing (docs/storage.md §3, §5).
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
import uuid
from contextlib import contextmanager

import numpy as np

from .cluster import connect
from .lock import writer_lock
from .output import plan_output
from .plan import plan
from .preflight import check_sweep, check_workers
from .runfile import RunSpec, load_run
from .store import done_flags, read_points, write_points
from .tasks import compute_chunk, handoff_names

#: Times a task is retried when it fails (worker loss is handled by the scheduler on top of this).
RETRIES = 3
#: Seconds between two looks at the finished tasks (and at Ctrl-C).
POLL = 0.05


def sweep(run, out, *, client=None, scheduler: str | None = None, slurm: bool = False, workers: int | None = None,
          resume: bool | None = None, overwrite: bool = False, progress: bool = True, retries: int = RETRIES,
          callback=None) -> str:
    """Run a sweep and write it to ``out`` (HDF5, docs/storage.md §3); returns the path.

    Parameters
    ----------
    run : RunSpec, path of a run file, or TOML text
    out : path of the HDF5 file (docs/storage.md §5). If it exists with the same run spec the sweep resumes
        (computes only the missing points; ``resume=False`` refuses instead); with another spec it is a
        StoreError; a file holding no point yet is replaced. Missing directories are created.
    client, scheduler, slurm, workers : where to compute: an existing ``distributed.Client``, the address of a
        running scheduler, a SLURMCluster from ``[cluster]``, or (default) a LocalCluster of ``workers``
        single-threaded processes (default: one per core).
    overwrite : replace an existing file: the new run is written to ``out + ".part"`` and replaces ``out``
        only once every point is done (stopped earlier, ``out`` is unchanged and the next call continues).
    progress : show a tqdm bar (points, points/s, ETA) and the dashboard address on stderr.
    retries : times a failed task is retried.
    callback : called as ``callback(done, total)`` after each chunk is written.

    Everything is checked before the output is touched (:func:`~meanfield.sweeps.preflight.check_sweep`), and
    the output's writer lock is held throughout: a second writer gets
    :class:`~meanfield.sweeps.lock.FileBusy`.
    """
    run = run if isinstance(run, RunSpec) else load_run(run)
    out = check_sweep(run, out, client=client, scheduler=scheduler, slurm=slurm, workers=workers)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with writer_lock(out):
        target = plan_output(run, out, resume, overwrite)
        if target.complete:
            return out if target.work == out else target.finish(target.open())
        with connect(run, client, scheduler, slurm, workers) as (c, n_workers):
            check_workers(c, run)
            f = target.open()
            try:
                _compute(run, f, c, n_workers, progress, retries, callback)
            except BaseException:
                written = int(done_flags(f).sum())
                f.close()
                print(f"meanfield sweep: stopped; {target.stopped(written)}", file=sys.stderr)
                raise
            return target.finish(f)


def _compute(run: RunSpec, f, c, n_workers: int, progress: bool, retries: int, callback) -> None:
    """Submit the tasks of the points not done in ``f`` and write each chunk as it arrives."""
    from dask.distributed import as_completed
    from tqdm import tqdm

    done = done_flags(f)
    total = run.n_points
    if progress and getattr(c, "dashboard_link", None):
        print(f"meanfield sweep: dashboard {c.dashboard_link}", file=sys.stderr)
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
    bar = tqdm(total=total, initial=int(done.sum()), unit="pt", disable=not progress, smoothing=0.05,
               desc=run.name, file=sys.stderr)
    written = int(done.sum())
    try:
        with _ctrl_c() as stop:
            while not pending.is_empty():
                if stop.is_set():
                    raise KeyboardInterrupt
                if not pending.has_ready():
                    time.sleep(POLL)
                    continue
                for future in pending.next_batch(block=False):
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


@contextmanager
def _ctrl_c():
    """Ctrl-C (SIGINT) as an event the client loop checks between chunks. Raised where it lands, the
    KeyboardInterrupt could land in a destructor of Dask's, where Python prints and drops it and the sweep
    runs on; checked here, it always stops the sweep (within :data:`POLL` s)."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


__all__ = ["sweep", "RETRIES"]
