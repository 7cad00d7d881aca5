"""Continua of attractors: when the cycle a start reaches varies continuously with the start (docs/attractors.md §2).

A map with a line (or surface) of fixed points or cycles — the PID-controlled attention model, whose controller
state carries the start's own reference row, is one — sends every start to its own member of the family, and a
census of n starts would report n one-start attractors. An isolated attracting cycle and a member of such a
family differ in one thing: pushed off the cycle, an isolated cycle's orbit comes back to it, while a
family member's orbit settles on a *neighbouring* member (the family direction is neutral: a multiplier 1) and
stays displaced.

The test (:func:`with_families`): every cycle of the census is pushed by ±:data:`FAMILY_PUSH` of its scale in
every coordinate and run on for the census's tail length; it **moves with the start** when its orbit at the end
of that run is farther from the cycle than the identity tolerance (``cycle_rtol``), at least :data:`STAYS` of
its distance halfway (not decaying back: an isolated cycle's displacement decays like |μ|^t) and within
:data:`REACH` pushes of it (not gone to another attractor).
The cycles that move, of one label and period, are reported as one entry: a *family* (``Attractor.family`` =
how many cycles the starts found on it), with the pooled points of its members (how the attractor depends on the
start), its total fraction and its spread (largest distance between members, relative to the family's extent).

Limit: an isolated cycle with a multiplier within 0.2/T of the unit circle (T the tail) returns too slowly to be
told from a family member in one run; a family whose transverse direction is that slow too is listed member
by member (as before this test existed).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..analysis.fingerprint import quantile_summary
from ..analysis.grouping import CYCLE_RTOL, hausdorff
from ..options import Compute

#: The push, relative to the cycle's scale, far above the identity tolerance (1e-4) and small enough to stay in
#: the cycle's basin.
FAMILY_PUSH = 1e-3

#: A family member settles on a neighbour: within this many pushes of where it was (farther, the push sent it to
#: another attractor's basin, which says nothing of a family).
REACH = 10.0

#: A displacement that keeps at least this fraction of its size over the second half of the run is not
#: decaying back to the cycle: an isolated cycle passes only if |μ|^(T/2) ≥ 0.9, i.e. a multiplier within
#: 0.2/T of the unit circle (T the tail); a family member's displacement along the family does not decay at all.
STAYS = 0.9


def moves_with_the_start(system, census, steps: int, transient: int, cycle_rtol: float = CYCLE_RTOL,
                         backend: str = "cpu") -> np.ndarray:
    """(k,) bool: which attractors of ``census`` (a :class:`~meanfield.census.find.Census`) are cycles that move with
    the start (module docstring)."""
    cycles = [k for k, a in enumerate(census.attractors) if a.period > 0]
    out = np.zeros(len(census.attractors), dtype=bool)
    if not cycles:
        return out
    pushed = [system.perturb(census.attractors[k].state, FAMILY_PUSH * census.attractors[k].scale, seed=k)
              for k in cycles]
    run = system.run(pushed, steps - transient, 0, series=False, compute=Compute(backend=backend))
    half = run.states.shape[1] // 2
    for j, k in enumerate(cycles):
        a = census.attractors[k]
        middle = hausdorff(a.points, run.states[j, half - a.period:half])
        end = hausdorff(a.points, run.states[j, -a.period:])
        push = FAMILY_PUSH * a.scale
        out[k] = cycle_rtol * a.scale < end <= REACH * push and end >= STAYS * middle
    return out


def _family(members: list, fraction: float, weighed: int):
    """One entry for the cycles ``members`` (of one label and period) that move with the start, their starts
    ``fraction`` of the ``weighed`` ones."""
    biggest = max(members, key=lambda a: a.fraction)
    points = np.concatenate([a.points for a in members])
    extent = float((points.max(axis=0) - points.min(axis=0)).max())
    spread = max((hausdorff(a.points, b.points) for a in members for b in members), default=0.0)
    return replace(biggest, fraction=fraction, fraction_stderr=float(np.sqrt(fraction * (1 - fraction) / weighed)),
                   summary=quantile_summary(points, biggest.summary.shape[0]), points=points,
                   scale=max(extent, biggest.scale), family=len(members),
                   reason=(f"a family of {len(members)} {biggest.label} cycles (period {biggest.period}) that move "
                           f"with the start (pushed by {FAMILY_PUSH:g} of their scale, they stay displaced); "
                           f"spread {spread:.3g}, {spread / max(extent, 1e-300):.2f} of the family's extent"))


def with_families(system, census, steps: int, transient: int, cycle_rtol: float = CYCLE_RTOL,
                  backend: str = "cpu", counted: int | None = None):
    """``census`` with the cycles that move with the start merged into one family per label and period (module
    docstring); every other attractor as it was. Only the first ``counted`` starts weigh in the fractions
    (default: all)."""
    moving = moves_with_the_start(system, census, steps, transient, cycle_rtol, backend)
    if not moving.any():
        return census
    weighed = census.assignment.size if counted is None else counted
    kinds = {}
    for k in np.flatnonzero(moving):
        a = census.attractors[k]
        kinds.setdefault((a.label, a.period), []).append(k)
    entries = [(census.attractors[k], [k]) for k in np.flatnonzero(~moving)]
    for ks in kinds.values():
        fraction = np.count_nonzero(np.isin(census.assignment[:weighed], ks)) / weighed
        entries.append((_family([census.attractors[k] for k in ks], fraction, weighed), ks))
    entries.sort(key=lambda entry: (-entry[0].fraction, min(entry[1])))
    renumber = np.full(len(census.attractors) + 1, -1, dtype=np.int64)   # the last entry keeps -1 at -1
    for new, (_, old) in enumerate(entries):
        renumber[old] = new
    return replace(census, attractors=[a for a, _ in entries], assignment=renumber[census.assignment])


__all__ = ["FAMILY_PUSH", "REACH", "STAYS", "moves_with_the_start", "with_families"]
