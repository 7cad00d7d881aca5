"""Planning a sweep: which points run together, in which order (docs/model.md §7.3 for continuation).

Without continuation, the grid's chunks of at most ``run.chunk`` points (whole rows where they fit,
:func:`~meanfield.sweeps.store.chunks.grid_chunk`) in grid order: a task's points are whole chunks of the file's
compressed datasets (docs/storage.md §3). With it (the reference's ``--chain``), a
point's start is the hand-off state of its parent, its neighbour along the continuation axis: points are
grouped into waves by their distance from the chain roots, and a task of wave d depends on the tasks of wave
d-1 that hold its points' parents, so many chains (every line of a 2-D grid, ``chains`` segments per line)
run side by side.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..config.runfile import RunSpec
from ..store.chunks import block_ids


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

    Without continuation: the points of each grid chunk (:func:`~meanfield.sweeps.store.chunks.block_ids`)
    not done, in grid order. With it: wave by wave, each wave cut into ``min(chunk, ceil(wave / workers))``-point
    tasks so that every worker gets a share of each wave.
    """
    todo = np.flatnonzero(~done)
    if run.continuation is None:
        blocks = block_ids(run.shape, run.chunk, todo)
        cuts = np.flatnonzero(blocks[1:] != blocks[:-1]) + 1
        return [Task(indices, np.full(len(indices), -1, dtype=np.int64), ()) for indices in np.split(todo, cuts)
                if len(indices)]
    parents = parents_of(run)
    depth = np.zeros(run.n_points, dtype=np.int64)
    for _ in range(run.n_points):                       # depth = distance from the chain root
        has = parents >= 0
        new = np.where(has, depth[np.maximum(parents, 0)] + 1, 0)
        if np.array_equal(new, depth):
            break
        depth = new
    owner = {}
    tasks = []
    for level in np.unique(depth[todo]):
        wave = todo[depth[todo] == level]
        size = min(run.chunk, max(1, math.ceil(len(wave) / workers)))
        for start in range(0, len(wave), size):
            indices = wave[start:start + size]
            deps = tuple(sorted({owner[int(p)] for p in parents[indices] if p >= 0 and not done[p]}))
            for i in indices:
                owner[int(i)] = len(tasks)
            tasks.append(Task(indices, parents[indices], deps))
    return tasks
