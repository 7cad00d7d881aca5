"""Label brackets replaced by located bifurcations where an orbit can be continued (docs/bifurcations.md §6).

For every transition of a 1-D mean-field sweep (:func:`.refine.transitions`), the side that is a fixed point
or a cycle is continued from its stored final state across the bracket — over the ``unresolved`` points beyond
it — up to the next point whose class is resolved and different; the first fold, period doubling or
Neimark–Sacker point met there replaces the brackets it covers. Everything else stays a bracket.

Before that, a point labelled ``unresolved`` or ``quasi_periodic`` whose final state is still converging to a stable
cycle of a neighbouring class — the slow approach near a bifurcation — is relabelled with that class when
Newton confirms the cycle (:func:`meanfield.attention_orbits.confirm_cycle`, docs/bifurcations.md §7).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...analysis.labels import SLOW_CYCLE_HIDES, UNDECIDED, PointClass
from ...attention_orbits import confirm_cycle
from ...errors import AnalysisError, ConfigError
from ...model.spec import SCALAR_PARAMETERS
from ...model.state import State
from ...periodic_orbits import located
from ...progress import Heartbeat, progress_bar
from ...systems import as_system
from ..store import read_refinements, read_sweep
from .refine import Transition, transitions


@dataclass(frozen=True)
class LocatedTransition:
    """A row of the transition table: a bifurcation located by its multipliers (``kind``, ``value``) or a label
    bracket (``kind`` = "bracket", ``value`` = None) between ``low`` and ``high``."""

    low: float
    high: float
    below: PointClass
    above: PointClass
    kind: str
    value: float | None = None
    rotation_number: float | None = None

    @property
    def source(self) -> str:
        return "labels" if self.value is None else "multipliers"


def cycle_period(point: PointClass, context: int) -> int | None:
    """The orbit period behind a class: L for ``fixed_point`` (the rest cycle of the forced map), its period for
    ``periodic``, None for classes without an orbit to continue."""
    if point.label == "fixed_point":
        return context
    return point.period if point.label == "periodic" else None


def final_states(path) -> list:
    """The stored final State of every computed point, grid then refinement rounds (the order of
    :func:`.refine.classified_points`); None where a point is not computed."""
    names = ("done", "final_att", "final_pe", "final_depth")
    data = read_sweep(path, names)
    blocks = [data.arrays] + [r["arrays"] for r in read_refinements(path, names)]
    states = []
    for block in blocks:
        for i, done in enumerate(block["done"].ravel()):
            if not done:
                states.append(None)
                continue
            depth = int(block["final_depth"].ravel()[i])
            att = block["final_att"].reshape(block["done"].size, *block["final_att"].shape[-2:])[i][:depth]
            pe = block["final_pe"].reshape(block["done"].size, *block["final_pe"].shape[-2:])[i] \
                if "final_pe" in block else []
            states.append(State(att=att, pe=pe))
    return states


@dataclass(frozen=True)
class ConfirmedCycle:
    """A point whose label (``was``) is replaced by ``now`` because Newton confirmed the stable cycle its final
    state converges to; ``largest`` = max|μ| of that cycle."""

    value: float
    was: PointClass
    now: PointClass
    largest: float


def _neighbour_classes(names, index: int) -> list[PointClass]:
    """The nearest resolved class on each side of point ``index`` (``names`` sorted by value)."""
    found = []
    for step in (-1, +1):
        j = index + step
        while 0 <= j < len(names) and names[j] in UNDECIDED + SLOW_CYCLE_HIDES:
            j += step
        if 0 <= j < len(names) and names[j] not in found:
            found.append(names[j])
    return found


def confirm_slow_cycles(model, parameter: str, values, names, states, progress: bool = False
                        ) -> list[ConfirmedCycle]:
    """Points labelled ``unresolved`` or ``quasi_periodic`` (``values`` sorted) converging to a stable cycle of a
    neighbouring class (module docstring); ``progress``: a bar over those points on stderr, naming the point and
    the class being checked."""
    confirmed = []
    suspects = [i for i, name in enumerate(names) if name in SLOW_CYCLE_HIDES and states[i] is not None]
    with progress_bar(len(suspects), "slow cycles", enabled=progress, unit="pt", waiting="Newton") as bar:
        for i in suspects:
            at_point = model.replace(**{parameter: float(values[i])})
            for candidate in _neighbour_classes(names, i):
                bar.set_postfix_str(f"{parameter} = {values[i]:.10g}: {candidate}?")
                period = cycle_period(candidate, model.context)
                orbit = None if period is None else confirm_cycle(at_point, states[i], period)
                if orbit is not None:
                    confirmed.append(ConfirmedCycle(float(values[i]), names[i], candidate,
                                                    float(np.abs(orbit.multipliers[0]))))
                    break
            bar.update(1)
    return confirmed


def _span(values, names, index: int, step: int) -> float:
    """From point ``index`` in direction ``step`` (+1/−1, ``values`` sorted), the first point whose class is
    resolved and differs from ``names[index]``; the last point that way when none does."""
    j = index + step
    while 0 <= j + step < len(values) and (names[j] in UNDECIDED or names[j] == names[index]):
        j += step
    return float(values[j])


def _continue(model, parameter, values, names, states, index, step, resolution, beat):
    period = cycle_period(names[index], model.context)
    if period is None or states[index] is None:
        return None
    interval = (float(values[index]), _span(values, names, index, step))
    try:
        found = located(as_system(model), parameter, interval, states[index], period, resolution, 0, beat)
    except AnalysisError:
        return None
    return (found[0], interval) if found else None


def locate_transitions(model, parameter: str, values, names, states, brackets: list[Transition],
                       resolution: float = 1e-10, progress: bool = False) -> list[LocatedTransition]:
    """The transition table with brackets replaced by located bifurcations (module docstring).

    ``values``, ``names``, ``states``: every computed point's parameter value, class and final State (any
    order); ``brackets`` the label brackets between them; ``model`` the sweep's model (its swept
    parameter is overridden); ``progress``: a bar over the brackets on stderr.
    """
    order = np.argsort(values, kind="stable")
    values, names = np.asarray(values)[order], np.asarray(names, dtype=object)[order]
    states = [states[i] for i in order]
    rows, covered = [], set()
    with progress_bar(len(brackets), "transitions", enabled=progress, unit="bracket", waiting="continuing") as bar:
        beat = Heartbeat(bar, f"continuing at {parameter}")
        for t in brackets:
            if (t.low, t.high) not in covered:
                rows.append(_row(model, parameter, values, names, states, t, brackets, resolution, covered, beat))
            bar.update(1)
    return rows


def _row(model, parameter, values, names, states, t: Transition, brackets, resolution, covered: set, beat
         ) -> LocatedTransition:
    """Bracket ``t`` as a located bifurcation (the brackets it spans added to ``covered``) or as a bracket;
    ``beat`` gets the parameter value of every Newton iterate."""
    index = {float(v): i for i, v in enumerate(values)}
    located = None
    for side, step in ((index[t.low], +1), (index[t.high], -1)):
        located = _continue(model, parameter, values, names, states, side, step, resolution, beat)
        if located is not None:
            break
    if located is None:
        return LocatedTransition(t.low, t.high, t.below, t.above, "bracket")
    point, (start, end) = located
    lo, hi = min(start, end), max(start, end)
    spanned = [u for u in brackets if lo <= u.low and u.high <= hi]
    covered.update((u.low, u.high) for u in spanned)
    return LocatedTransition(lo, hi, spanned[0].below, spanned[-1].above, point.kind, point.value,
                             point.rotation_number)


def located_table(axis: str, rows: list[LocatedTransition]) -> str:
    """The table printed by ``meanfield analyze --bifurcations``."""
    head = f"transitions in {axis} (multipliers: located by continuation; labels: bracket)"
    lines = [head + ":", f"  {'source':11s} {'kind':15s} {'at / from':>14s} {'to':>12s}   below -> above"]
    for r in rows:
        at = f"{r.value:14.10f}" if r.value is not None else f"{r.low:14.8f}"
        to = "" if r.value is not None else f"{r.high:12.8f}"
        extra = "" if r.rotation_number is None else f"   (rotation number {r.rotation_number:.6f})"
        lines.append(f"  {r.source:11s} {r.kind:15s} {at} {to:>12s}   {r.below} -> {r.above}{extra}")
    return "\n".join(lines if rows else [head + ": none"])


def require_continuable(data) -> None:
    """ConfigError unless ``data`` (a :class:`~meanfield.sweeps.store.SweepData`) is a 1-D mean-field sweep
    over a scalar model parameter with stored final states."""
    axes = list(data.axes)
    if len(axes) != 1 or axes[0] not in SCALAR_PARAMETERS:
        raise ConfigError(f"--bifurcations is not allowed for {data.path!r}: it sweeps {axes}; it needs a 1-D "
                          f"sweep over one of {', '.join(SCALAR_PARAMETERS)}")
    if data.run.get("finite") is not None:
        raise ConfigError(f"--bifurcations is not allowed for {data.path!r}: it is a finite-N sweep")


def confirmed_table(axis: str, confirmed: list[ConfirmedCycle]) -> str:
    """The relabelled points printed by ``meanfield analyze --bifurcations``."""
    head = f"classes corrected by Newton (a stable cycle approached slowly) in {axis}"
    lines = [f"  {c.value:14.8f}   {c.was} -> {c.now}   (max|mu| = {c.largest:.6f})" for c in confirmed]
    return "\n".join([head + ":"] + lines if confirmed else [head + ": none"])


def sweep_bifurcations(path, values, names, progress: bool = False
                       ) -> tuple[list[LocatedTransition], list[ConfirmedCycle]]:
    """For a 1-D sweep file (its model, axis and stored final states): the points relabelled by
    :func:`confirm_slow_cycles`, then :func:`locate_transitions` between the corrected classes (``progress``:
    a bar for each on stderr)."""
    data = read_sweep(path)
    require_continuable(data)
    model, axis, states = data.model(), data.axes[0], final_states(path)
    order = np.argsort(values, kind="stable")
    values, names = np.asarray(values)[order], np.asarray(names, dtype=object)[order].copy()
    states = [states[i] for i in order]
    confirmed = confirm_slow_cycles(model, axis, values, names, states, progress)
    relabel = {c.value: c.now for c in confirmed}
    names = np.array([relabel.get(float(v), n) for v, n in zip(values, names)], dtype=object)
    located = locate_transitions(model, axis, values, names, states, transitions(values, names), progress=progress)
    return located, confirmed
