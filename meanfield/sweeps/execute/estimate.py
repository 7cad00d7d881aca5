"""What a sweep will cost before it runs (``meanfield sweep --dry-run``): its points, the size of its file, and
a time measured on this machine the way the sweep will run.

The time is measured on one chunk of the run's own size (``chunk`` points spread inside the grid, so the CPU
kernel runs the same full tiles), through the sweep's own task
(:func:`meanfield.sweeps.execute.tasks.compute_chunk`: simulation, reductions, classification evidence), on one
thread, after a warm-up call that compiles the kernels, in two pieces:

1. the recorded part at its real length — records, exponents, reductions and evidence cost what they will —
   after a transient cut to :data:`SHORT_TRANSIENT` steps; a recorded part longer than :data:`MAX_RECORDED`
   steps is cut to that and scaled linearly;
2. the rest of the transient: plain steps of the same points (no records, no exponents; a census's starts
   too, with its tail cut to four rows), timed over at most :data:`PLAIN_STEPS` steps and scaled linearly.

Times are the process's CPU time, so that other work on the machine does not inflate them: the estimate is
for an otherwise idle machine. The estimate is per point, divided over the workers. On a local cluster the
workers' start-up is added (:func:`startup_seconds`: one fresh process importing what a worker imports and running
a first short task, timed on the wall clock; the workers start side by side); on SLURM it is the queue's wait and
on a running scheduler none, so neither is included. A local sweep also starts and closes its cluster (timed by
:func:`task_seconds` on the sweep's own cluster, whose worker processes send the timed tasks' results) and its
command imports the package first (the dry run's own import time, the same command's). The one-time compilation
is never included.

Each task also costs more than its points (:func:`task_seconds`, measured at every dry run): on the client, one at
a time, Dask's scheduling of it, the arrival of its result and the write of its chunk to the file and the journal
(the sweep's own :func:`~meanfield.sweeps.execute.run.store_result`); on a worker, the packing of its compressed
chunks. They are timed on up to :data:`OVERHEAD_TASKS` real tasks of the run, whose results (a cheap version of
the run's task: the same stored layout, a short run) go through a Dask client — from the worker processes of the
sweep's own local cluster for a local sweep, else from an in-process worker — to a scratch file and journal created
as the sweep creates them, in a temporary directory deleted afterwards. The
client's part does not divide over the workers: for a grid of many light tasks it is most of the time (a 300 × 300
grid of 20-step points in chunks of 32: ≈ 10 ms a task against ≈ 1.5 ms of compute). The estimate is
``tasks × client + (points × per point + tasks × packing) / workers`` (:func:`total_seconds`).

A census's chain (docs/attractors.md §3, §6) is estimated apart (:func:`chain_seconds`): its kernel calls batch
the starts carried from many points (full tiles), so it costs about :data:`CARRIED_PER_POINT` starts per point,
each timed as one lane of a full tile with its fingerprint; lines and directions run side by side on the
workers. How many attractors a point has is not known before the run: the paper model's censuses hold 1.4–1.7
per point.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from ...options import Compute
from ..config.runfile import RunSpec
from .tasks import compute_chunk

#: Transient of the calibration's recorded piece (at least the context, so exponents start on a full window).
SHORT_TRANSIENT = 1000
#: Longest recorded part measured at its real length (steps); longer ones are scaled linearly.
MAX_RECORDED = 100_000
#: Longest run of plain steps timed for the transient.
PLAIN_STEPS = 50_000
#: Carried starts per point assumed for a census's chain (module docstring).
CARRIED_PER_POINT = 2
#: Recorded steps of the first task a new worker runs when its start-up is measured (:func:`startup_seconds`).
STARTUP_RECORDED = 200
#: Tasks timed end to end by :func:`task_seconds` (at most; the first is a warm-up).
OVERHEAD_TASKS = 48
#: Wall seconds after which :func:`task_seconds` stops submitting tasks (it bounds the measurement).
OVERHEAD_BUDGET = 1.5
#: What :func:`startup_seconds` runs in a fresh process: a worker's imports and its first task (the run as JSON on
#: standard input).
_FIRST_TASK = """
import json, sys
import numpy as np
import distributed.worker
from meanfield.sweeps.execute.tasks import compute_chunk
from meanfield.sweeps.config.runfile import stored_run
compute_chunk(stored_run(json.loads(sys.stdin.read())), np.arange(1), np.full(1, -1))
"""


def calibration_runs(run: RunSpec) -> tuple:
    """((recorded piece, its scale factor), (plain piece, its scale factor)) for :func:`seconds_per_point`
    (module docstring); the plain piece is None when the transient is not longer than the recorded piece's."""
    recorded = run.steps - run.transient
    kept = min(recorded, MAX_RECORDED)
    piece = _shortened(run, kept)
    rest = run.transient - piece.transient
    if rest <= 0:
        return (piece, recorded / kept), (None, 0.0)
    plain_steps = min(rest, PLAIN_STEPS)
    census = {} if run.attractors is None else {"attractors.max_period": 2}   # its starts' plain steps too
    plain = run.replace(steps=plain_steps + 4, transient=plain_steps, lyapunov=False, **{"record.tail": 0}, **census)
    return (piece, recorded / kept), (plain, rest / plain_steps)


def _shortened(run: RunSpec, kept: int) -> RunSpec:
    """``run`` with its transient cut to :data:`SHORT_TRANSIENT` steps (at least the context) and ``kept`` of its
    recorded steps."""
    transient = min(run.transient, max(SHORT_TRANSIENT, run.model.context))
    rows = (kept + run.record.every - 1) // run.record.every
    return run.replace(steps=transient + kept, transient=transient, **{"record.tail": min(run.record.tail, rows)})


def _cpu_seconds(run: RunSpec, indices: np.ndarray) -> float:
    start = time.process_time()
    compute_chunk(run, indices, np.full(len(indices), -1))
    return time.process_time() - start


def seconds_per_point(run: RunSpec) -> float:
    """Single-thread CPU seconds per grid point of ``run`` on this machine (module docstring)."""
    import numba
    size = min(run.chunk, run.n_points)
    indices = np.unique(np.linspace(0, run.n_points - 1, size + 2)[1:-1].round().astype(np.int64)) \
        if run.n_points > size else np.arange(run.n_points)
    (piece, piece_factor), (plain, plain_factor) = calibration_runs(run)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        compute_chunk(piece, indices[:1], np.full(1, -1))             # compiles (or loads the kernel cache)
        total = _cpu_seconds(piece, indices) * piece_factor
        if plain is not None:
            compute_chunk(plain, indices[:1], np.full(1, -1))
            total += _cpu_seconds(plain, indices) * plain_factor
    finally:
        numba.set_num_threads(threads)
    return total / len(indices)


def chain_seconds(run: RunSpec, workers: int) -> float:
    """Estimated wall seconds of a census's chain on ``workers`` workers (module docstring); 0 without one."""
    if run.attractors is None:
        return 0.0
    from ...analysis.fingerprint import fingerprint
    from ...kernels.cpu import TILE_WIDTH
    from ...systems import AttentionSystem

    spec, system = run.attractors, AttentionSystem(run.model)
    lanes = TILE_WIDTH                                       # one full tile of carried starts
    starts = system.sample(lanes, spec.seed, spec.sampler)
    parameters = {k: np.repeat(v[:1], lanes) for k, v in run.parameters(np.zeros(1, dtype=np.int64)).items()}
    begin = time.process_time()
    tails = system.run(starts, run.steps, run.transient, values=parameters, series=False,
                       compute=Compute(backend=run.backend)).states
    fingerprint(tails, max_period=spec.max_period)
    per_point = (time.process_time() - begin) / lanes * CARRIED_PER_POINT
    length = len(next(a for a in run.grid_axes if a.name == spec.axis).values)
    tasks = run.n_points // length * len(spec.directions)
    return per_point * length * -(-tasks // max(1, workers))


def basin_seconds(run: RunSpec, workers: int) -> float:
    """Estimated wall seconds of a basin map (docs/basins.md §7) on ``workers`` workers; 0 without one. Two pixel
    rows run as a task runs them (their start States and the kernel) with no attractor to assign them to: the
    assignment of starts on known cycles costs a few per cent of a block (bench/RESULTS.md, "Basin map"), and
    the blocks scale with the rows."""
    if run.basins is None:
        return 0.0
    from ...census.basins import KnownAttractors, plane_ids
    from .basins import point_model

    model, values = point_model(run)
    plane = run.basins.plane(model)
    rows = min(2, plane.shape[0])
    none = KnownAttractors(period=np.zeros(0, np.int64), scale=np.zeros(0), quantiles=np.zeros((0, 1, 1)), points=[])
    begin = time.process_time()
    plane_ids(model, plane, range(rows), none, run.basins.steps, run.basins.transient, values=values,
              backend=run.backend)
    return (time.process_time() - begin) * plane.shape[0] / rows / max(1, workers)


@dataclass(frozen=True)
class TaskCost:
    """What one task costs besides its points' compute (module docstring), in seconds: ``client`` on the
    client, serial (Dask's scheduling, the result's arrival and unpickling, the write of its chunk and journal
    record), ``worker`` on a worker (packing its compressed chunks); ``timed``: how many tasks were timed;
    ``cluster``: the start and close of the sweep's own cluster where it was timed (0 otherwise)."""

    client: float
    worker: float
    timed: int
    cluster: float = 0.0


def _cheap(run: RunSpec) -> RunSpec:
    """A short version of ``run`` whose tasks store the same layout (the tail's rows, a census's cycles), for
    :func:`task_seconds`."""
    least = 2 * run.attractors.max_period if run.attractors is not None else STARTUP_RECORDED
    return _shortened(run, min(run.steps - run.transient, max(least, run.record.tail * run.record.every)))


def _returned(result: dict) -> dict:
    """A task that sends back what it holds (:func:`task_seconds` on worker processes)."""
    return result


def task_seconds(run: RunSpec, tasks: list, cluster=None) -> TaskCost:
    """The per-task costs of ``run`` on this machine (:class:`TaskCost`, module docstring), timed on up to
    :data:`OVERHEAD_TASKS` of ``tasks`` (the sweep's plan, :func:`~meanfield.sweeps.execute.plan.plan`) for at most
    about :data:`OVERHEAD_BUDGET` seconds, written to a scratch file in a temporary directory that is deleted
    afterwards: nothing is written beside the run's output. ``cluster``: a function starting the sweep's own
    cluster (:func:`.cluster.local_cluster` for a local sweep): the tasks' results then come from its worker
    processes, as the sweep's do, and its start and close are timed too (``TaskCost.cluster``); None: an
    in-process worker, with the results' unpickling timed apart."""
    import dask
    from dask.distributed import Client, LocalCluster, as_completed

    from ..store.chunks import direct_writes, pack
    from ..store.output import plan_output
    from ..store.sweep import checked_names, sweep_layout
    from .run import store_result

    cheap = _cheap(run)
    size = len(tasks[0].indices)
    chosen = [t.indices for t in tasks if len(t.indices) == size][:OVERHEAD_TASKS]
    result = compute_chunk(cheap, chosen[0], np.full(size, -1))          # one chunk's real arrays
    with tempfile.TemporaryDirectory(prefix="meanfield-estimate-") as scratch:
        target = plan_output(cheap, os.path.join(scratch, "estimate.h5"), None, False)
        f = target.open()
        try:
            layout = sweep_layout(cheap)
            packed = direct_writes(f, cheap, checked_names(layout))
            results, packing = [], 0.0
            for indices in chosen:                                           # what the workers send back
                begin = time.process_time()
                arrays = {**result, "index": indices}
                chunks = pack(cheap, layout, checked_names(layout), arrays) if packed else None
                packing += time.process_time() - begin
                results.append(arrays if chunks is None else {"index": indices, "host": result["host"],
                                                              "chunks": chunks})
            begin = time.perf_counter()
            arrival = [pickle.loads(pickle.dumps(r, protocol=5)) for r in results[:8]]
            unpickle = (time.perf_counter() - begin) / len(arrival) if cluster is None else 0.0
            with dask.config.set({"temporary-directory": scratch}):
                begin = time.perf_counter()
                with (cluster() if cluster is not None else
                      LocalCluster(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None,
                                   local_directory=scratch)) as dask_cluster, Client(dask_cluster) as client:
                    started = time.perf_counter() - begin
                    held = client.scatter(results) if cluster is not None else None   # on the workers, untimed
                    submitted = time.perf_counter()
                    futures = [client.submit(_returned, held[k], pure=False) if held is not None else
                               client.submit(results.__getitem__, k, pure=False) for k in range(len(results))]
                    stored, first = 0, None
                    for future in as_completed(futures):
                        store_result(f, cheap, future.result(), target.journal)
                        stored += 1
                        if first is None:
                            first = time.perf_counter()                      # the warm-up task is not timed
                        elif time.perf_counter() - first > OVERHEAD_BUDGET:
                            client.cancel(futures)
                            break
                    last = closing = time.perf_counter()
                closed = time.perf_counter() - closing
        finally:
            f.close()
            target.close_journal()
    timed = stored - 1
    client_part = (last - first) / timed if timed else first - submitted
    return TaskCost(client=client_part + unpickle, worker=packing / len(chosen), timed=timed,
                    cluster=started + closed if cluster is not None else 0.0)


def total_seconds(points: int, tasks: int, per_point: float, cost: TaskCost, workers: int) -> float:
    """Wall seconds of ``points`` in ``tasks`` tasks on ``workers`` workers (module docstring): the client's
    per-task part is serial, the compute and the packing divide over the workers."""
    return tasks * cost.client + (points * per_point + tasks * cost.worker) / max(1, workers)


def startup_seconds(run: RunSpec) -> float | None:
    """Wall seconds for a fresh Python process to become a worker that has run a first task of ``run``: Python
    started, Dask's worker and the task module imported, the run's kernels loaded from numba's cache (which
    :func:`seconds_per_point` has filled) by a short task of one point (:data:`STARTUP_RECORDED` recorded steps,
    two cycles' worth for a census). A local cluster starts its workers side by side, so this is its start-up
    (module docstring); None when the process fails."""
    kept = min(run.steps - run.transient,
               2 * run.attractors.max_period if run.attractors is not None else STARTUP_RECORDED)
    begin = time.perf_counter()
    started = subprocess.run([sys.executable, "-c", _FIRST_TASK], input=_shortened(run, kept).to_json(), text=True,
                             capture_output=True)
    return time.perf_counter() - begin if started.returncode == 0 else None


def duration(seconds: float) -> str:
    """``"≈ 42 s"``, ``"≈ 7.5 min"``, ``"≈ 3.2 h"``."""
    if seconds < 90:
        return f"≈ {seconds:.0f} s"
    if seconds < 5400:
        return f"≈ {seconds / 60:.1f} min"
    return f"≈ {seconds / 3600:.1f} h"


def size(n_bytes: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n_bytes < 1000 or unit == "GB":
            return f"{n_bytes:.0f} {unit}" if unit == "B" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1000


__all__ = ["seconds_per_point", "task_seconds", "total_seconds", "TaskCost", "chain_seconds", "basin_seconds",
           "startup_seconds", "calibration_runs", "duration", "size"]
