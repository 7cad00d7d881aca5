"""Unsettled starts decided (docs/attractors.md §8): starts a census leaves unsettled (settled on no attractor)
because their tails are still closing in on a stable cycle, or are still on a long transient.

Next to a fold, flip or Neimark–Sacker point a stable cycle attracts with a multiplier near the unit circle, and a
census run ends before its tails settle (at β_o = 1.2431, 0.0013 below the rest cycle's Neimark–Sacker point, every
start of a 40 000-step census). Every unsettled start with a finite tail is offered to the system's ``confirm_cycle``
with the forcing period and the periods of the census's cycles (lcm with the forcing period); where the system decides
cycles by Newton (the attention model without PID control: :func:`meanfield.attention_orbits.confirm_cycle`,
docs/bifurcations.md §7; a user's Map and a controlled model answer None), the cycle is confirmed when Newton
converges, it is stable and the start's distance to it decays as its multipliers predict.
A confirmed cycle is an attractor as the census's others are: a confirming run from a state on it (Newton's),
fingerprinted and labelled by the classifier, so ``classify`` of a run from its state gives the same label; a start
whose cycle is one of the census's attractors joins it. The starts still unsettled then run on as a group's
representative does (:data:`.find.CONFIRM_TAILS` tails, the last fingerprinted) — a long transient (near a fold,
the ghost of the cycle that is born there) has usually ended by then —, are grouped by the census's rules, and
each group joins the attractor it is identical to or is a new one, labelled on its representative's run. Starts
that escape to infinity, and those that still settle nowhere, stay unsettled. Fractions are counted again and the
attractors ordered as :func:`.find.census_of` orders them; a census without such starts is returned as it is.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..analysis.fingerprint import DEFAULT_QUANTILES, fingerprint
from ..analysis.grouping import group_attractors
from .attractor import identify, run_attractor


def _candidates(system, census) -> list:
    """The periods tried: the forcing period, then those of the census's cycles (lcm with it), each once."""
    q = system.forcing_period
    periods = [q] + [math.lcm(a.period, q) for a in census.attractors if a.period > 0]
    return list(dict.fromkeys(periods))


def _same_orbit(a: np.ndarray, b: np.ndarray, rtol: float) -> bool:
    """Whether two orbits' points (N, n) are one cycle entered at phases a multiple of the forcing period apart
    (any rotation of the rows), to ``rtol`` of its extent."""
    if a.shape != b.shape:
        return False
    tolerance = rtol * max(float(np.ptp(a)), 1e-12)
    return any(np.abs(np.roll(a, s, axis=0) - b).max() <= tolerance for s in range(a.shape[0]))


def _open(census, assignment: np.ndarray) -> np.ndarray:
    """The starts still unsettled whose tails are finite (a start that escaped to infinity stays unsettled)."""
    return np.flatnonzero((assignment < 0) & (census.fingerprints.period >= 0))


def _newton_pass(system, census, final_state, rtol: float) -> tuple[list, np.ndarray]:
    """The stable cycles the unsettled starts are closing in on: [(orbit, a start's state)] and, per start,
    the index of its cycle in that list (-1: none confirmed)."""
    orbits, owner = [], np.full(census.assignment.size, -1, dtype=np.int64)
    for i in _open(census, census.assignment):
        state = final_state(int(i))
        for period in _candidates(system, census):
            orbit = system.confirm_cycle(state, period)
            if orbit is not None:
                known = [k for k, (o, _) in enumerate(orbits) if _same_orbit(o.points, orbit.points, rtol)]
                owner[i] = known[0] if known else len(orbits)
                if not known:
                    orbits.append((orbit, state))
                break
    return orbits, owner


def decide_unsettled(system, census, final_state, confirm, *, counted: int | None = None,
                           max_period: int, rtol: tuple):
    """``census`` with its unsettled starts decided where they can be (module docstring): those closing in on a
    stable cycle by Newton, the others by running on. ``final_state(i)``: start i's state at the end of the
    census run; ``confirm(states)``: runs of :data:`.find.CONFIRM_TAILS` tails from ``states``, the last
    recorded (:func:`.find.confirm_starts` with the run's options bound); ``counted``: the starts that count in
    the fractions (default all)."""
    if _open(census, census.assignment).size == 0:
        return census
    attractors, assignment = list(census.attractors), census.assignment.copy()
    orbits, owner = _newton_pass(system, census, final_state, rtol[0])
    if orbits:
        run = confirm([system.on_orbit(orbit, state) for orbit, state in orbits])
        on = fingerprint(run.states, max_period=max_period, n_quantiles=DEFAULT_QUANTILES)
        same = identify(on, attractors, rtol)
        slot = np.empty(len(orbits), dtype=np.int64)
        for k, (orbit, _) in enumerate(orbits):
            slot[k] = same[k] if same[k] >= 0 else len(attractors)
            if same[k] < 0:
                attractors.append(run_attractor(system, run, k, on, k, note=f"; reached slowly (max|μ| = "
                                                f"{abs(orbit.multipliers[0]):.6f}, Newton)"))
        assignment[owner >= 0] = slot[owner[owner >= 0]]
    rest = _open(census, assignment)
    if rest.size:                                   # a long transient: the starts run on, as a representative does
        run = confirm([final_state(int(i)) for i in rest])
        on = fingerprint(run.states, max_period=max_period, n_quantiles=DEFAULT_QUANTILES)
        grouping = group_attractors(on, cycle_rtol=rtol[0], measure_rtol=rtol[1])
        leaders = grouping.representative
        same = identify(on.take(leaders), attractors, rtol)
        slot = np.empty(leaders.size, dtype=np.int64)
        for g, lane in enumerate(leaders):
            slot[g] = same[g] if same[g] >= 0 else len(attractors)
            if same[g] < 0:
                attractors.append(run_attractor(system, run, int(lane), on, int(lane),
                                                note="; settled after a long transient"))
        joined = grouping.assignment >= 0
        assignment[rest[joined]] = slot[grouping.assignment[joined]]
    if len(attractors) == len(census.attractors) and np.array_equal(assignment, census.assignment):
        return census
    return _recounted(census, attractors, assignment, census.assignment.size if counted is None else counted)


def _recounted(census, attractors: list, assignment: np.ndarray, weighed: int):
    """The census with every attractor's fraction counted from ``assignment`` and the attractors ordered by
    decreasing count, then by their first start (as :func:`.find.census_of` orders them)."""
    counts = np.array([np.count_nonzero(assignment[:weighed] == k) for k in range(len(attractors))])
    first = np.array([np.flatnonzero(assignment == k)[0] if np.any(assignment == k) else assignment.size
                      for k in range(len(attractors))])
    order = np.lexsort((first, -counts))
    renumber = np.append(np.argsort(order), -1)                     # the last entry renumbers -1 to -1
    ordered = []
    for k in order:
        f = counts[k] / weighed
        ordered.append(replace(attractors[k], fraction=float(f), fraction_stderr=float(np.sqrt(f * (1 - f) / weighed))))
    return replace(census, attractors=ordered, assignment=renumber[assignment])


__all__ = ["decide_unsettled"]
