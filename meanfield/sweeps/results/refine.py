"""Locating transitions: bisect between neighbouring points of a 1-D sweep whose classes differ
(docs/classification.md §9).

A class is the label with its period (:class:`~meanfield.analysis.labels.PointClass`: periodic of period 28 and of 56
differ, a period doubling). Each round takes every pair of neighbouring points (base grid and earlier rounds together,
sorted along the axis) whose classes differ and whose distance exceeds the requested resolution, and computes the points
halfway between them — a sweep of its own over that explicit grid, stored in the group ``refine/round_NN`` of the same
file with the layout of a sweep file (docs/storage.md §6). Rounds repeat until every bracket is at most the resolution
wide. Everything is deterministic (labels are bitwise reproducible), so an interrupted refinement resumes: a round that
exists is reopened and only its missing points are computed.

Bisection finds one transition per bracket: where the classes alternate faster than the base grid resolves
(windows inside chaos), the table shows the transitions the bisection met, not all of them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...analysis import Thresholds
from ...analysis.labels import MISSING, MISSING_NAME, PointClass, point_classes
from ...errors import ConfigError, StoreError
from ...progress import progress_bar
from ..config.runfile import stored_run
from ..execute.tasks import compute_chunk
from ..store import done_flags, open_refinement, read_refinements, read_sweep, write_points
from ..store.lock import writer_lock
from .labels import decide_points, point_labels

#: Points simulated per batch while refining (results do not depend on it).
BATCH = 32


@dataclass(frozen=True)
class Transition:
    """A located transition: the class changes from ``below`` at ``low`` to ``above`` at ``high``."""

    low: float
    high: float
    below: PointClass
    above: PointClass

    @property
    def width(self) -> float:
        return self.high - self.low


def transitions(values: np.ndarray, names: np.ndarray) -> list:
    """Every pair of neighbouring computed points (sorted by value) whose classes differ."""
    keep = names != MISSING_NAME
    order = np.argsort(values[keep], kind="stable")
    v, n = values[keep][order], names[keep][order]
    return [Transition(float(v[i]), float(v[i + 1]), n[i], n[i + 1]) for i in range(len(v) - 1) if n[i] != n[i + 1]]


def classified_points(path, thresholds: Thresholds = Thresholds(), rounds: int | None = None) -> tuple:
    """(axis name, values, classes) of every computed point of a 1-D sweep file: its grid and its refinement
    rounds (all, or the first ``rounds``)."""
    data = read_sweep(path)
    if len(data.axes) != 1:
        raise ConfigError(f"locating transitions needs a 1-D sweep; {path!r} has axes {data.axes}")
    axis = data.axes[0]
    codes, periods = point_labels(path, thresholds)
    values, names = [data.coords[axis]], [point_classes(codes, periods)]
    for rnd in read_refinements(path, ("evidence",))[:rounds]:
        codes, periods = decide_points(rnd["arrays"]["evidence"], thresholds, rnd["evidence_keys"])
        codes[~rnd["arrays"]["done"].astype(bool)] = MISSING
        values.append(rnd["values"])
        names.append(point_classes(codes, periods))
    return axis, np.concatenate(values), np.concatenate(names)


def _refinable(path):
    data = read_sweep(path, ("done",))
    run = stored_run(data.run)
    if len(run.axes) != 1 or run.finite is not None:
        raise ConfigError(f"refinement needs a 1-D mean-field sweep; {path!r} has axes "
                          f"{[a.name for a in run.grid_axes]}")
    if run.continuation is not None:
        raise ConfigError(f"refinement of {path!r} is not allowed: its points start from their neighbours "
                          "([continuation]); a point between two of them has no defined start")
    if not data.arrays["done"].all():
        raise StoreError(f"{path!r}: {int((~data.arrays['done'].astype(bool)).sum())} points are not computed; "
                         "finish the sweep (meanfield sweep --resume) before refining it")
    return run


def _compute_round(path, name: str, run, progress: bool) -> None:
    """Compute the missing points of refinement round ``name`` (in this process, every core), holding the
    file's writer lock (a sweep writing the file meanwhile is refused, and vice versa)."""
    with writer_lock(path, "meanfield analyze --refine"):
        _write_round(path, name, run, progress)


def _write_round(path, name: str, run, progress: bool) -> None:
    f, group = open_refinement(path, name, run)
    try:
        todo = np.flatnonzero(~done_flags(group))
        with progress_bar(todo.size, f"refine {name}", enabled=progress) as bar:
            for start in range(0, todo.size, BATCH):
                indices = todo[start:start + BATCH]
                write_points(group, run, indices, compute_chunk(run, indices, np.full(indices.size, -1)))
                bar.update(indices.size)
    finally:
        f.close()


def refine(path, resolution: float, thresholds: Thresholds = Thresholds(), max_rounds: int = 40,
           progress: bool = True) -> list:
    """Bisect every transition of a 1-D sweep file down to ``resolution`` (in units of its axis); returns the
    located transitions (:func:`transitions` of all points). Each batch of a round is written to the file as it
    finishes, so an interrupted refinement (Ctrl-C) keeps it; ``progress``: a bar per round on stderr."""
    if not (np.isfinite(resolution) and resolution > 0):
        raise ConfigError(f"resolution = {resolution!r} is not allowed: must be a positive number")
    run = _refinable(path)
    axis = run.axes[0].name
    for k in range(int(max_rounds)):      # round k bisects what the grid and rounds 0 .. k-1 left open
        _, values, names = classified_points(path, thresholds, rounds=k)
        mids = sorted({0.5 * (t.low + t.high) for t in transitions(values, names) if t.width > resolution})
        if not mids:
            break
        _compute_round(path, f"round_{k:02d}", run.replace(name=f"{run.name}-refine-{k:02d}", grid={axis: mids}),
                       progress)
    return transitions(*classified_points(path, thresholds)[1:])


def transition_table(axis: str, found: list, resolution: float | None = None) -> str:
    """The located transitions as a text table (one line each: bracket, width, classes below → above)."""
    head = f"located transitions in {axis}" + ("" if resolution is None else f" (resolution {resolution:g})")
    lines = [head + ":", f"  {'from':>12s} {'to':>12s} {'width':>9s}   below -> above"]
    lines += [f"  {t.low:12.8f} {t.high:12.8f} {t.width:9.2e}   {t.below} -> {t.above}" for t in found]
    return "\n".join(lines if found else [head + ": none"])


__all__ = ["Transition", "transitions", "classified_points", "refine", "transition_table"]
