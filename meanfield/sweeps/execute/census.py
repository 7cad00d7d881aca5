"""The attractor census of a sweep with an ``[attractors]`` table (docs/attractors.md §6), in two stages:

1. :func:`census_arrays`, inside every chunk's task: the fresh census of each point (the same ``starts`` fresh
   starts at every point, all points of the chunk in one batched kernel run, at most :data:`LANES` lanes per
   call), stored per point in the ``census_*`` datasets like every other result.
2. :func:`chain_line`, once every point is stored: one task per line of the grid along ``attractors.axis`` and
   per direction, chaining the stored fresh censuses with carried starts and matched ids
   (:func:`meanfield.census.continuation.continue_censuses`); the client writes each direction's group.

Every start runs on its own kernel lane and every census depends only on its point's starts, so nothing
depends on the chunking, the number of workers or the completion order; stage 2 reads only stored numbers, so a
resumed sweep chains exactly what an uninterrupted one would.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import xarray as xr

from ...analysis import LABELS
from ...census.attractor import Attractor
from ...census.continuation import continue_censuses
from ...census.find import Census, census_of, confirm_starts, group_starts, label_undecided
from ...census.transients import follow_transients
from ...census.unsettled import decide_unsettled
from ...model.state import State
from ...options import Compute
from ...systems import AttentionSystem
from ...systems.starts import sample
from ..config.runfile import RunSpec

#: Most kernel lanes (starts × points) per call: memory for the recorded tails, lanes ≥ 4 tiles of 64.
LANES = 256


def census_arrays(run: RunSpec, model, indices, parameters: dict) -> dict:
    """The fresh census of every point ``indices`` (sharing ``model``; ``parameters`` their values, as
    :meth:`RunSpec.parameters`): the ``census_*`` arrays of :func:`meanfield.sweeps.store.census.census_layout`."""
    spec = run.attractors
    n, points = spec.starts, len(indices)
    starts = sample(model, n, spec.sampler, seed=spec.seed)
    slots, width = spec.max_attractors, spec.max_period
    out = _empty(run, model, points)
    system = AttentionSystem(model)
    per_call = max(1, LANES // n)
    for lo in range(0, points, per_call):
        block = range(lo, min(points, lo + per_call))
        batch = system.run(starts * len(block), run.steps, run.transient, series=False,
                           compute=Compute(backend=run.backend),
                           values={k: np.repeat(v[lo:block.stop], n) for k, v in parameters.items()})
        groups = [group_starts(batch.states[j * n:(j + 1) * n], max_period=width, rtol=spec.rtol)
                  for j in range(len(block))]
        # every group's representative runs on to be confirmed: all of the block's in one kernel call
        owners = np.concatenate([np.full(g.representative.size, p, dtype=np.int64) for p, (_, g) in zip(block, groups)])
        confirming = confirm_starts(system, {k: v[owners] for k, v in parameters.items()},
                                    [batch.final_state(j * n + int(i)) for j, (_, g) in enumerate(groups)
                                     for i in g.representative], run.steps, run.transient,
                                    lyapunov=run.lyapunov or False, backend=run.backend)
        first_lane = np.cumsum([0] + [g.representative.size for _, g in groups])
        for j, p in enumerate(block):
            prints, grouping = groups[j]
            census = census_of(system, prints, grouping, confirming,
                               np.arange(first_lane[j], first_lane[j + 1]), max_period=width, rtol=spec.rtol)
            at = system.replace(**{k: float(v[p]) for k, v in parameters.items()})
            confirm = partial(confirm_starts, at, None, steps=run.steps, transient=run.transient,
                              lyapunov=run.lyapunov or False, backend=run.backend)
            census = decide_unsettled(at, census, lambda i, j=j: batch.final_state(j * n + i), confirm,
                                            max_period=width, rtol=spec.rtol)
            census = label_undecided(at, census, run.steps, run.transient, lyapunov=run.lyapunov or False,
                                     backend=run.backend)
            if spec.transients:
                _store_transient(out, p, follow_transients(
                    at, census, lambda i, j=j: batch.final_state(j * n + i), run.steps, run.transient,
                    spec.transients, counted=n, max_period=width, backend=run.backend))
            out["census_count"][p] = len(census.attractors)
            out["census_unsettled"][p] = census.unsettled_fraction
            out["census_assignment"][p] = census.assignment
            for k, a in enumerate(census.attractors[:slots]):
                _store(out, p, k, a)
    return out


def _store_transient(out: dict, p: int, transient) -> None:
    """The share of the chaotic transient (0 without one) and its escape rate per step (NaN when none escaped)."""
    out["census_transient_share"][p] = 0.0 if transient is None else transient.share
    if transient is not None and transient.escape is not None:
        out["census_escape_rate"][p] = transient.escape.rate
        out["census_escape_rate_stderr"][p] = transient.escape.stderr


def _empty(run: RunSpec, model, points: int) -> dict:
    from ..store.census import census_coordinates, census_layout

    coords = census_coordinates(run)
    sizes = {**{name: len(values) for name, values in coords.items()}, "feature": model.n_features,
             "window": model.context, "pe_bit": model.pe_bits, "exponent": run.lyapunov}
    return {name: np.full((points,) + tuple(sizes[d] for d in dims), fill, dtype=dtype)
            for name, (dims, dtype, fill) in census_layout(run).items() if model.pe_bits or "pe_bit" not in dims}


def _store(out: dict, p: int, k: int, a: Attractor) -> None:
    out["census_period"][p, k], out["census_label"][p, k] = a.period, LABELS.index(a.label)
    out["census_fraction"][p, k], out["census_fraction_stderr"][p, k] = a.fraction, a.fraction_stderr
    out["census_scale"][p, k], out["census_summary"][p, k] = a.scale, a.summary
    if a.period > 0:
        out["census_points"][p, k, :a.period] = a.points
    depth = a.state.att.shape[0]
    out["census_depth"][p, k] = depth
    out["census_att"][p, k, :depth] = a.state.att
    if "census_pe" in out:
        out["census_pe"][p, k] = a.state.pe
    if a.lyapunov is not None:
        out["census_lyapunov"][p, k] = a.lyapunov


def _stored_census(arrays: dict, i: int) -> Census:
    """The fresh census of point ``i`` of ``arrays`` (stage 1's datasets) as a Census (no fingerprints)."""
    attractors, window = [], arrays["census_att"].shape[2]
    for k in np.flatnonzero(arrays["census_period"][i] >= 0):
        period, depth = int(arrays["census_period"][i, k]), int(arrays["census_depth"][i, k])
        lyapunov = arrays["census_lyapunov"][i, k] if "census_lyapunov" in arrays else None
        attractors.append(Attractor(
            label=LABELS[int(arrays["census_label"][i, k])], period=period,
            fraction=float(arrays["census_fraction"][i, k]),
            fraction_stderr=float(arrays["census_fraction_stderr"][i, k]), lyapunov=lyapunov,
            state=State(att=arrays["census_att"][i, k, :depth],
                        pe=arrays["census_pe"][i, k] if "census_pe" in arrays else np.zeros((window, 0))),
            summary=arrays["census_summary"][i, k], points=arrays["census_points"][i, k, :max(period, 0)],
            scale=float(arrays["census_scale"][i, k])))
    return Census(attractors=attractors, assignment=arrays["census_assignment"][i], fingerprints=None)


def chain_line(run: RunSpec, direction: str, line: np.ndarray, arrays: dict) -> xr.Dataset:
    """Stage 2 for one line of the grid: ``line`` the flat indices of its points in increasing order along
    ``attractors.axis``, ``arrays`` their stage-1 datasets (same order); ``direction`` ``up`` or ``down``.
    Returns the continuation dataset over (axis, attractor) (:meth:`AttractorContinuation.to_dataset`)."""
    spec = run.attractors
    (model, _), = run.model_groups(line[:1])
    order = np.arange(len(line)) if direction == "up" else np.arange(len(line))[::-1]
    values = run.parameters(line)[spec.axis][order]
    others = {k: v[0] for k, v in run.parameters(line[:1]).items() if k != spec.axis}
    base = model.replace(**others) if others else model
    chained = continue_censuses(base, spec.axis, values, [_stored_census(arrays, int(i)) for i in order], run.steps,
                                run.transient, lyapunov=run.lyapunov or False, max_period=spec.max_period,
                                rtol=spec.rtol, match_rtol=spec.match_rtol, backend=run.backend)
    return chained.to_dataset(max_period=spec.max_period)


def lines_of(run: RunSpec) -> list:
    """Flat indices of every line of the grid along ``attractors.axis`` (increasing along it), in grid order of
    the other axis."""
    axis = [a.name for a in run.grid_axes].index(run.attractors.axis)
    grid = np.moveaxis(np.arange(run.n_points).reshape(run.shape), axis, -1)
    return list(grid.reshape(-1, run.shape[axis]))


def stack_lines(run: RunSpec, pieces: list) -> xr.Dataset:
    """One dataset over the grid axes (in the run's order) and ``attractor`` from the per-line datasets of
    :func:`chain_line` (ids are per line)."""
    spec = run.attractors
    others = [a for a in run.grid_axes if a.name != spec.axis]
    if not others:
        return pieces[0]
    other = others[0]
    ds = xr.concat(pieces, dim=other.name, join="outer", fill_value={"label": -1, "period": -1})
    ds = ds.assign_coords({other.name: other.array})
    return ds.transpose(*[a.name for a in run.grid_axes], "attractor", ...)


__all__ = ["LANES", "census_arrays", "chain_line", "lines_of", "stack_lines"]
