"""The work a sweep's workers do: simulate and reduce one chunk of grid points, returning numpy arrays (the
client writes them, :mod:`.store`). One task function per system, in the registry :data:`TASKS` keyed by
:attr:`RunSpec.system <meanfield.sweeps.config.runfile.RunSpec.system>`: a new system is one entry there and its
datasets in :data:`meanfield.sweeps.store.SYSTEM_DATASETS`.

A point's results do not depend on the other points of its chunk, hence nothing depends on the chunk size,
the number of workers or the completion order.
"""
from __future__ import annotations

import platform

import numba
import numpy as np

from ...analysis.reductions import reduce_points
from ...finite import Replicas, simulate_finite_batch
from ...model.state import State
from ...options import Compute, Record
from ...simulation import simulate_batch
from ..config.runfile import RunSpec
from ..store.chunks import pack
from ..store.sweep import checked_names, sweep_layout
from .census import census_arrays
from .evidence import EVIDENCE, point_evidence


def handoff_names(run: RunSpec) -> tuple:
    prefix = "pre" if run.continuation is not None and run.continuation.pre_steps else "final"
    return tuple(f"{prefix}_{part}" for part in ("att", "pe", "depth"))


def _starts(run: RunSpec, model, parents, sources):
    """Start States of a chunk: the run's base start, or the parent's hand-off found in ``sources``."""
    base = run.base_state(model) or model.checkpoint
    if np.all(parents < 0):
        return base
    att, pe, depth = handoff_names(run)
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


def finite_chunk(run: RunSpec, indices, parents, sources) -> dict:
    """The points ``indices`` of a run with a ``[finite]`` table (docs/model.md §6); ``parents`` and
    ``sources`` are unused (a finite point starts from x0 = W^o[0], never from a neighbour).

    Points are grouped by model (a ``seed`` axis, :meth:`RunSpec.model_groups`) and N_se (the last grid axis) and
    each group is one :func:`~meanfield.finite.simulate_finite_batch` call with the groups' parameter values;
    replica r draws
    from the stream (seed, r) at every point, so nothing depends on the chunking. Per point:
    ``finite_error``, the replica average of the mean |m^{o,se}_N − m^{o,se}_MF| over all features and the
    first ``aligned_steps`` aligned rows (finite rows L+1 .., as
    :meth:`~meanfield.finite.FiniteTrajectory.aligned_error`), ``finite_error_stderr`` (sample standard
    deviation over replicas / √R; NaN for R = 1), the reductions of the replica-mean observable over rows
    ``transient`` .. ``steps``-1 (every ``record.every``-th; finite convention, no factor w, docs/model.md §8), tails
    of the replica means, and evidence NaN / max_integral NaN / diverged_at -1 (no exponents or PID here).
    """
    spec = run.finite
    indices = np.asarray(indices, dtype=np.int64)
    n = len(indices)
    n_bits = run.n_bits(indices)
    first, window = run.model.context + 1, spec.aligned_steps
    rows = slice(run.transient, run.steps, run.record.every)
    error = np.full(n, np.nan)
    stderr = np.full(n, np.nan)
    names = set(run.record.observables) | {run.reductions.observable}
    series = {}
    groups = [(model, same_model[n_bits[same_model] == value])
              for model, same_model in run.model_groups(indices) for value in np.unique(n_bits[same_model])]
    for model, group in groups:
        batch = simulate_finite_batch(model, int(n_bits[group[0]]), run.steps,
                                      Replicas(spec.replicas, sampler=spec.sampler, seed=spec.seed),
                                      parameters=run.parameters(indices[group]))
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


def mean_field_chunk(run: RunSpec, indices, parents, sources) -> dict:
    """The points ``indices`` of a mean-field run (docs/model.md §3, §4): each starts from the run's base start
    or its continuation parent's hand-off (:func:`compute_chunk`), optionally after a pre-run. Points of
    different models (a ``seed`` axis) run as one batch per model; their results are concatenated (the
    ``index`` entry says where each point goes)."""
    indices = np.asarray(indices, dtype=np.int64)
    parents = np.asarray(parents, dtype=np.int64)
    parts = [_mean_field_points(run, model, indices[group], parents[group], sources)
             for model, group in run.model_groups(indices)]
    return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}


def _mean_field_points(run: RunSpec, model, indices, parents, sources) -> dict:
    """:func:`mean_field_chunk` for points that share one model."""
    params = run.parameters(indices)
    start = _starts(run, model, parents, sources)
    out = {"index": indices}
    if run.continuation is not None and run.continuation.pre_steps:
        pre_steps = run.continuation.pre_steps
        pre = simulate_batch(model, pre_steps, pre_steps - 1, parameters=params, start=start, record=("att",),
                             compute=Compute(backend=run.backend, progress=False))
        out.update(pre_att=pre.final_att, pre_pe=pre.final_pe, pre_depth=pre.final_depth)
        start = [pre.final_state(i) for i in range(len(indices))]
    backend, reducer = run.backend, None
    if run.device == "cuda":
        # reductions on the device; only a tail (for the tails stored and the classification) comes back
        from ...kernels.cuda_reductions import ReducingBackend
        backend = reducer = ReducingBackend(run.reductions, tail=max(run.record.tail, GPU_CLASSIFY_ROWS),
                                            dtype=run.dtype)
    result = simulate_batch(model, run.steps, run.transient, parameters=params, start=start,
                            lyapunov=run.lyapunov or False, record=Record(run.recorded, every=run.record.every),
                            compute=Compute(backend=backend, progress=False))
    out.update(final_att=result.final_att, final_pe=result.final_pe, final_depth=result.final_depth)
    if run.lyapunov:
        out.update(lyapunov=result.lyapunov, lyapunov_stderr=result.lyapunov_stderr)
    observed = result.records[run.reductions.observable]
    out.update(reducer.reduced if reducer is not None else reduce_points(observed, run.reductions))
    out["evidence"] = point_evidence(observed, result.lyapunov, result.lyapunov_stderr,
                                     forcing=model.forcing_period(run.record.every))
    out["max_integral"] = result.max_integral
    out["diverged_at"] = result.diverged_at
    if run.record.tail:
        for name in run.record.observables:
            out[f"tail_{name}"] = result.records[name][:, -run.record.tail:]
    if run.attractors is not None:
        out.update(census_arrays(run, model, indices, params))
    return out


#: The task of each system (:attr:`RunSpec.system`): ``task(run, indices, parents, sources) -> dict``.
TASKS = {"mean_field": mean_field_chunk, "finite": finite_chunk}


def compute_chunk(run: RunSpec, indices, parents, *sources) -> dict:
    """Simulate and reduce the grid points ``indices`` (flat, C order); a Dask task.

    ``parents`` holds, per point, the flat index of the point whose hand-off state it starts from (-1: the
    run's base start); ``sources`` are earlier chunk results (or arrays read back from the file) holding
    those hand-off states. Returns the per-point arrays of :func:`meanfield.sweeps.store.sweep_layout`,
    ``index`` and ``host`` (the machine that computed them, for the file's provenance), computed by the task of
    the run's system (:data:`TASKS`).
    """
    # A worker's WORKER_ENV (NUMBA_NUM_THREADS=1) reaches os.environ after numba was imported, which fixed its
    # thread count at one per core. Read it before a kernel starts threads (a threading layer launched with the
    # stale count would fail a later compilation) and make it this task thread's count, which the CPU kernels
    # run (else every worker would run one thread per core).
    numba.config.reload_config()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return {**TASKS[run.system](run, indices, parents, sources), "host": platform.node()}


def compute_packed(run: RunSpec, indices, parents, *sources) -> dict:
    """:func:`compute_chunk` with its result ready to store in a compressed file (docs/storage.md §3): the
    file's compressed chunks (``chunks``, :func:`~meanfield.sweeps.store.chunks.pack`) are built here on the
    worker, so the client only writes bytes; ``index``, ``host`` and the hand-off states (a continuation's next
    wave starts from them) stay arrays. Points that are not whole chunks come back as :func:`compute_chunk`
    returns them."""
    result = compute_chunk(run, indices, parents, *sources)
    layout = sweep_layout(run)
    chunks = pack(run, layout, checked_names(layout), result)
    if chunks is None:
        return result
    keep = {"index", "host", *handoff_names(run)}
    return {**{k: v for k, v in result.items() if k in keep}, "chunks": chunks}


__all__ = ["TASKS", "compute_chunk", "compute_packed", "mean_field_chunk", "finite_chunk", "handoff_names",
           "GPU_CLASSIFY_ROWS"]
