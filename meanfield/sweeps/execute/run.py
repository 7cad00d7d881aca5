"""Running a sweep: the client loop. It checks everything before touching the output (:mod:`.preflight`),
takes the output's writer lock (:mod:`.lock`), decides which file the points go to (:mod:`.output`), plans
the tasks (:mod:`.plan`), submits them to a Dask cluster (:mod:`.cluster`), and writes each chunk as it
arrives (:mod:`.store`), with a progress bar (points/s, ETA, workers alive, SLURM jobs running and pending)
and retries. Ctrl-C and SIGTERM stop cleanly: every finished chunk is stored and every SLURM job the sweep
submitted is cancelled. On a cluster meanfield does not control, the watchdog (:mod:`.watchdog`) ends a sweep
that cannot progress with one line (:class:`~meanfield.errors.ClusterError`).

Only the client writes the HDF5 file, chunk by chunk as results arrive, so an interrupted sweep keeps every
finished chunk and a later call computes only what is missing (docs/storage.md §3, §5).
"""
from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from functools import partial

import numpy as np

from ...errors import ClusterError, ConfigError, StoreError
from ...model.spec import require_int
from ...progress import check_progress, progress_bar, sigterm_interrupts
from ..config.runfile import RunSpec, load_run
from ..config.where import Place, where_to_compute
from ..store import (
    PART_SUFFIX,
    WRITE_ERRORS,
    append_provenance,
    done_flags,
    read_points,
    reading,
    sweep_layout,
    update_provenance,
    write_packed,
    write_points,
)
from ..store.basins import basins_done, create_basins, finish_basins, pending_rows, write_rows
from ..store.census import attractors_done, write_attractors
from ..store.chunks import direct_writes
from ..store.curves import curves_done
from ..store.journal import read_journal
from ..store.lock import writer_lock
from ..store.output import plan_output
from ..store.provenance import now, record
from ..store.sweep import checked_names
from .basins import basin_block, blocks, point_model
from .census import chain_line, lines_of, stack_lines
from .cluster import arrivals, connect
from .curves import curves_stage
from .plan import plan
from .preflight import check_sweep, check_workers
from .tasks import compute_chunk, compute_packed, handoff_names

log = logging.getLogger(__name__)

#: Times a task is retried when it fails (worker loss is handled by the scheduler on top of this).
RETRIES = 3
#: Seconds between two looks at the finished tasks (and at Ctrl-C).
POLL = 0.05
#: Whether chunks go to the journal first (docs/storage.md §8); MEANFIELD_JOURNAL=0 turns it off, only to
#: measure what it costs (bench/RESULTS.md): a sweep without it is not rebuilt after damage.
JOURNAL = os.environ.get("MEANFIELD_JOURNAL", "1") != "0"


def sweep(run: RunSpec | str | os.PathLike, out: str | os.PathLike, *, place: Place = Place(),
          resume: bool | None = None, overwrite: bool = False, progress: bool | None = True, retries: int = RETRIES,
          callback: Callable[[int, int], object] | None = None) -> str:
    """Run a sweep and write it to ``out`` (HDF5, docs/storage.md §3); returns the path.

    Parameters
    ----------
    run : RunSpec, str or os.PathLike
        The run spec, the path of a run file, or TOML text.
    out : str or os.PathLike
        Path of the HDF5 file (docs/storage.md §5). If it exists with the same run spec the sweep resumes
        (computes only the missing points; ``resume=False`` refuses instead, ``resume=True`` refuses a missing
        file); with another spec it is a StoreError; a file holding no point yet is replaced. Missing
        directories are created. Each session appends a provenance record (docs/storage.md §1).
    place : ~meanfield.Place
        Where to compute, decided once by
        :func:`~meanfield.sweeps.config.where.where_to_compute`: an existing ``distributed.Client``, the address of
        a running scheduler, SLURM jobs from ``[cluster]`` (``slurm=True`` or ``kind = "slurm"``; ``workers`` =
        jobs), or (default) a LocalCluster of ``workers`` single-threaded processes (default: one per core).
    overwrite : bool
        Replace an existing file: the new run is written to ``out + ".part"`` and replaces ``out``
        only once every point is done (stopped earlier, ``out`` is unchanged and the next call continues).
    progress : bool or None
        Show a progress bar (points, points/s, an ETA measured after the first chunk, so without the
        compilation; workers alive and SLURM jobs on a cluster meanfield does not control) and the dashboard
        address on stderr, and say so when ``out`` is already complete: True (the default) or None (the same: a
        sweep starts its workers, so it always runs longer than a tool's :data:`~meanfield.progress.PROGRESS_DELAY`),
        False never.
    retries : int
        Times a failed task is retried.
    callback : ~collections.abc.Callable, optional
        Called as ``callback(done, total)`` after each chunk is written.

    Notes
    -----
    Everything is checked before the output is touched (:func:`~meanfield.sweeps.execute.preflight.check_sweep`), and
    the output's writer lock is held throughout: a second writer gets
    :class:`~meanfield.sweeps.store.lock.FileBusy`.
    """
    check_progress(progress)
    progress = progress is not False
    if not any(resume is allowed for allowed in (True, None, False)):
        raise ConfigError(f"resume = {resume!r} is not allowed: must be True, None or False")
    if not isinstance(overwrite, bool):
        raise ConfigError(f"overwrite = {overwrite!r} is not allowed: must be True or False")
    require_int("retries", retries, 0)
    if callback is not None and not callable(callback):
        raise ConfigError(f"callback = {callback!r} is not allowed: must be a function callback(done, total) or None")
    run = run if isinstance(run, RunSpec) else load_run(run)
    where = where_to_compute(run.cluster_spec, place)
    out = check_sweep(run, out, where)
    if resume and not overwrite and not (os.path.exists(out) or os.path.exists(out + PART_SUFFIX)):
        raise StoreError(f"output {out!r} does not exist: there is nothing to resume (leave out --resume to start it)")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with writer_lock(out):
        target = plan_output(run, out, resume, overwrite)
        if target.note:
            print(f"meanfield sweep: {target.note}", file=sys.stderr)
        if target.complete and not _stages_pending(run, target.work):
            if progress and target.work == out:
                print(f"meanfield sweep: {out} is already complete ({run.n_points} points): nothing to do",
                      file=sys.stderr)
            return out if target.work == out else target.finish(target.open())
        with sigterm_interrupts(), connect(where) as connection:
            check_workers(connection.client, run)
            f = target.open()
            hosts = set()
            _record(f, run, connection, "create" if target.create else "resume", where.describe())
            try:
                _compute(run, f, connection, progress, retries, callback, hosts, target.journal)
                if run.attractors is not None and not attractors_done(f, run):
                    _chain(run, f, connection.client, progress, retries)
                if run.basins is not None and not basins_done(f):
                    _basins(run, f, connection.client, progress, retries, target.journal if JOURNAL else None)
                if run.curves is not None:
                    with _ctrl_c() as stop:
                        curves_stage(run.curves, f, connection.client, progress=progress, retries=retries,
                                     arrived=partial(arrivals, stop=stop, poll=POLL))
            except BaseException as exc:
                written = int(done_flags(f).sum())
                _close_stopped(f, hosts)
                target.close_journal()
                if isinstance(exc, (ClusterError, StoreError)):        # one line: why, and what is stored
                    raise type(exc)(f"{exc}; {target.stopped(written)}") from None
                print(f"meanfield sweep: stopped; {target.stopped(written)}", file=sys.stderr)
                raise
            _end_record(f, hosts)
            return target.finish(f)


def _record(f, run: RunSpec, connection, action: str, where: str) -> None:
    """Append this session's provenance record (docs/storage.md §1): the code, where it computes (``where``, a
    few words), how much."""
    c, n_workers = connection.client, connection.workers
    hosts = sorted({w.get("host", "?") for w in c.scheduler_info().get("workers", {}).values()})
    todo = int((~done_flags(f)).sum())
    log.debug("%s %s: %d of %d points to compute on %s (%d workers, hosts %s)", action, f.filename, todo,
              run.n_points, where, n_workers, hosts)
    append_provenance(f, record(action, cluster=where, workers=n_workers, worker_hosts=hosts, points_to_compute=todo))


def _stages_pending(run: RunSpec, path: str) -> bool:
    """Whether the census's chained stage (docs/attractors.md §6), the basin map (docs/basins.md §7) or the
    curves (docs/bifurcations.md §12) are still to be written to ``path``."""
    if run.attractors is None and run.curves is None:
        return False
    with reading(path) as f:
        return ((run.attractors is not None and not attractors_done(f, run))
                or (run.basins is not None and not basins_done(f)) or (run.curves is not None and not curves_done(f)))


def _chain(run: RunSpec, f, client, progress: bool, retries: int) -> None:
    """Stage 2 of the census (:mod:`.census`): one task per line and direction from the stored fresh
    censuses, all submitted at once; each direction's group is written when its lines are done."""
    lines = lines_of(run)
    stored = {name: f[name][...].reshape((run.n_points,) + f[name].shape[len(run.shape):])
              for name in sweep_layout(run) if name.startswith("census_")}
    # one future per line (a scattered dict would be scattered value by value under its keys, shared by all lines)
    inputs = [client.scatter([{k: v[line] for k, v in stored.items()}], direct=False)[0] for line in lines]
    futures = {direction: [client.submit(chain_line, run, direction, line, data, retries=retries, pure=False)
                           for line, data in zip(lines, inputs)] for direction in run.attractors.directions}
    everything = [future for group in futures.values() for future in group]
    bar = progress_bar(len(everything), f"{run.name}: attractors", enabled=progress)
    try:
        with _ctrl_c() as stop:
            for direction, group in futures.items():
                pieces = []
                for future in group:
                    while not future.done():
                        if stop.is_set():
                            raise KeyboardInterrupt
                        time.sleep(POLL)
                    pieces.append(future.result())
                    bar.update(1)
                write_attractors(f, direction, stack_lines(run, pieces))
    except BaseException:
        client.cancel(everything + inputs)
        raise
    finally:
        bar.close()


def _basins(run: RunSpec, f, client, progress: bool, retries: int, journal=None) -> None:
    """Stage 3, the basin map (:mod:`.basins`): the rows the ``journal`` holds and the file lacks are written
    from it (a file rebuilt after damage, docs/storage.md §8–§9); then one task per block of ``chunk`` pixel rows
    holding a row not yet written, all submitted at once; each block goes to the journal, then to the file, as
    it arrives; then the map's fractions."""
    census = {name: f[name][...].reshape((run.n_points,) + f[name].shape[len(run.shape):])[0]
              for name in sweep_layout(run) if name.startswith("census_")}
    create_basins(f, run.basins.plane(point_model(run)[0]), census)
    if journal is not None:
        contents = read_journal(journal.path)
        for first, ids in contents.basin_rows() if contents.matches(run) else ():
            if np.isin(np.arange(first, first + len(ids)), pending_rows(f)).any():
                write_rows(f, first, ids)
    data = client.scatter([census], direct=False)[0]
    futures = [client.submit(basin_block, run, first, count, data, retries=retries, pure=False)
               for first, count in blocks(run, pending_rows(f))]
    bar = progress_bar(len(futures), f"{run.name}: basin map", enabled=progress)
    try:
        with _ctrl_c() as stop:
            for result in arrivals(futures, stop, POLL):
                if journal is not None:
                    journal.append_rows(result["first"], result["id"])
                write_rows(f, result["first"], result["id"])
                bar.update(1)
        finish_basins(f)
    except BaseException:
        client.cancel(futures + [data])
        raise
    finally:
        bar.close()


def _close_stopped(f, hosts: set) -> None:
    """Record the end of a stopped session and close the file; on a full disk HDF5 may fail both, and the
    file is then rebuilt from its journal by the next run (docs/storage.md §8)."""
    try:
        _end_record(f, hosts)
    except WRITE_ERRORS as exc:
        log.debug("the provenance record was not completed: %s", exc)
    try:
        f.close()
    except WRITE_ERRORS as exc:
        log.debug("the file was not closed cleanly: %s", exc)


def _end_record(f, hosts: set) -> None:
    """Complete this session's record: the machines that computed its points, when it ended, points stored."""
    if hosts:
        update_provenance(f, computed_on=sorted(hosts), ended=now(), points_done=int(done_flags(f).sum()))


def _compute(run: RunSpec, f, connection, progress: bool, retries: int, callback, hosts: set, journal=None) -> None:
    """Submit the tasks of the points not done in ``f`` (to ``connection``, a
    :class:`~meanfield.sweeps.execute.cluster.Connection`) and write each chunk as it arrives, first into the
    ``journal`` (fsynced, docs/storage.md §8) then into ``f``; the hosts that computed them are added to
    ``hosts``."""
    from dask.distributed import as_completed

    c, n_workers, watchdog = connection

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
    # workers compress a compressed file's chunks themselves (docs/storage.md §3); older files get arrays
    task_function = compute_packed if direct_writes(f, run, checked_names(sweep_layout(run))) else compute_chunk
    futures = []
    for n, task in enumerate(tasks):
        sources = [futures[d] for d in task.deps] + ([from_file] if resumed_parents else [])
        futures.append(c.submit(task_function, run, task.indices, task.parents, *sources,
                                key=f"meanfield-{run.name}-{tag}-{n}", retries=retries, pure=False))
    pending = as_completed(futures)
    futures = {future.key: future for future in futures}     # dropped once written: frees the workers
    bar = progress_bar(total, run.name, enabled=progress, initial=int(done.sum()),
                       waiting=f"starting {n_workers} workers, compiling")
    written = int(done.sum())
    started = time.perf_counter()
    try:
        with _ctrl_c() as stop:
            while not pending.is_empty():
                if stop.is_set():
                    raise KeyboardInterrupt
                if watchdog is not None and watchdog.check() and getattr(bar, "postfix", None) != watchdog.status:
                    bar.set_postfix_str(watchdog.status)
                if not pending.has_ready():
                    time.sleep(POLL)
                    continue
                for future in pending.next_batch(block=False):
                    result = future.result()
                    hosts.add(result["host"])
                    store_result(f, run, result, journal)
                    del futures[future.key]
                    written += len(result["index"])
                    bar.update(len(result["index"]))
                    if watchdog is not None:
                        watchdog.progressed()
                    if callback is not None:
                        callback(written, total)
    except BaseException:
        c.cancel(list(futures.values()))
        raise
    finally:
        bar.close()
    log.debug("%d points in %.1f s", written - int(done.sum()), time.perf_counter() - started)


def store_result(f, run: RunSpec, result: dict, journal=None) -> None:
    """Store one task's ``result`` in ``f`` as it arrives at the client, with the ``journal`` (unless
    :data:`JOURNAL` is off): packed chunks are stored, then indexed in the journal; arrays are journaled first,
    then stored (docs/storage.md §8). The dry run times this same call (:mod:`.estimate`)."""
    journaled = journal if JOURNAL else None
    if "chunks" in result:
        write_packed(f, run, result["index"], result["chunks"], journaled)
    else:
        if journaled is not None:
            journaled.append(result["index"], result)
        write_points(f, run, result["index"], result)


@contextmanager
def _ctrl_c():
    """Ctrl-C (SIGINT) and SIGTERM as an event the client loop checks between chunks. Raised where it lands,
    the KeyboardInterrupt could land in a destructor of Dask's, where Python prints and drops it and the sweep
    runs on; checked here, it always stops the sweep (within :data:`POLL` s)."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


__all__ = ["sweep", "store_result", "RETRIES"]
