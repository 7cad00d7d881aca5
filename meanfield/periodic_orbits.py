"""Periodic orbits, multipliers and located bifurcations of any system (docs/bifurcations.md §5): the attention
model (:mod:`meanfield.attention_orbits`, its PE-forced N-step map) or a user's :class:`~meanfield.Map`.
A system hands over Newton's problem (``orbit_problem``: the family of maps, the start points, the period); the
multiple-shooting Newton and the continuation of :mod:`meanfield.analysis` solve it the same way for both.
"""
from __future__ import annotations

import math
from dataclasses import replace

from .analysis.bifurcations import Bifurcation, continue_and_locate
from .analysis.orbits import PeriodicOrbit, orbit_from
from .attention_orbits import TRANSIENT
from .errors import AnalysisError, ConfigError
from .model.spec import require_int
from .model.state import State
from .progress import SpanBar, check_progress, delay_of
from .systems import as_system

#: Bifurcations listed by ``repr`` of a :class:`Located`.
SHOWN = 12


def _check_orbit_arguments(period, transient) -> None:
    """ConfigError for a period that is not a positive integer or a negative transient, before anything runs."""
    if period is not None:
        require_int("period", period, 1)
    require_int("transient", transient, 0)


def periodic_orbit(model, state: State | None = None, period: int | None = None, *,
                   transient: int = 0) -> PeriodicOrbit:
    """The periodic orbit of the attention map through (or near) ``state``.

    Parameters
    ----------
    model : ModelSpec or Map
        The attention model (or it as a system, docs/architecture.md §2), or a user's map
        (:class:`meanfield.Map`: ``state`` an array, default the map's own, iterated ``transient`` steps;
        its period detected as below, without a forcing).
    state : State, optional
        A state on or near the orbit (default: the model's checkpoint, iterated at least
        :data:`~meanfield.attention_orbits.TRANSIENT` steps; a Map's own state).
    period : int, optional
        The cycle's period q in steps; the orbit computed has N = lcm(q, L) points when the model has a
        positional encoding (module docstring). Default: detected by iterating from ``state``.
    transient : int
        Steps iterated from ``state`` before Newton.

    Returns
    -------
    PeriodicOrbit
        ``points`` (N, L·M) are the windows A (row-major) at PE phases 0 … N−1 of ``state``'s PE window;
        multipliers of the N-step map (docs/bifurcations.md §1).
    """
    system = as_system(model)
    _check_orbit_arguments(period, transient)
    family, points, _ = system.orbit_problem(state, int(transient), period)
    return orbit_from(family(), points)


class Located(list):
    """The located bifurcations (a list of :class:`~meanfield.analysis.bifurcations.Bifurcation`, in the order met along
    the branch) and the continued ``branch``: per continuation point "value", "points" (the orbit's windows, (N, L·M)),
    "multipliers" and "stable"."""

    def __init__(self, found: list[Bifurcation], branch: dict | None):
        super().__init__(found)
        self.branch = branch

    def __repr__(self) -> str:
        """A line per bifurcation (kind, parameter, value, period), the branch by its length."""
        lines = [f"Located({len(self)} bifurcations; branch of "
                 f"{'no' if self.branch is None else len(self.branch['value'])} points)"]
        lines += [f"  {b.kind} at {b.parameter} = {b.value:.12g} (period {b.period})" for b in self[:SHOWN]]
        if len(self) > SHOWN:
            lines.append(f"  ... {len(self) - SHOWN} more")
        return "\n".join(lines)


def bifurcations(model, parameter: str, interval, *, state: State | None = None,
                 period: int | None = None, resolution: float = 1e-10, transient: int = TRANSIENT,
                 progress: bool | None = None) -> Located:
    """Continue a periodic orbit of the attention map along ``parameter`` over ``interval`` and locate its
    folds, period doublings and Neimark–Sacker points (docs/bifurcations.md).

    Parameters
    ----------
    model : ModelSpec or Map
        The attention model (or it as a system, docs/architecture.md §2), or a user's map
        (:class:`meanfield.Map`: ``state`` an array near the orbit, default the map's own).
    parameter : str
        A scalar model parameter ("beta_o", "beta_att", "scaling_att", "scaling_o", "epsilon", "gamma"), or one of
        the Map's parameters.
    interval : (float, float)
        The continuation runs from ``interval[0]`` to ``interval[1]``.
    state : State, optional
        A state near the orbit at ``parameter = interval[0]``; default the model's checkpoint (the rest cycle
        of the paper model, period L; iterated at least :data:`~meanfield.attention_orbits.TRANSIENT` steps).
    period : int, optional
        The cycle's period in steps (default: detected after ``transient`` steps).
    resolution : float
        Accuracy of the located parameter values.
    transient : int
        Steps iterated from ``state`` at ``interval[0]`` before Newton.
    progress : bool or None
        A bar on stderr, the share of ``interval`` the continuation has covered: True at once, None once the
        continuation has run :data:`~meanfield.progress.PROGRESS_DELAY` seconds (the default, as every long call of
        the package), False never.

    Returns
    -------
    ~meanfield.periodic_orbits.Located
        A list of :class:`~meanfield.analysis.bifurcations.Bifurcation` (``kind``, ``value``, ``multipliers``,
        ``period`` — the N of the orbit —, ``rotation_number`` for Neimark–Sacker: turns of the critical multiplier per
        N steps) with the continued
        branch as ``.branch``.
    """
    system = as_system(model)
    _check_orbit_arguments(period, transient)
    system.index(parameter)
    try:
        lo, hi = (float(v) for v in interval)
    except (TypeError, ValueError):
        raise ConfigError(f"interval = {interval!r} is not allowed: must be two numbers (start, end)") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo == hi:
        raise ConfigError(f"interval = {interval!r} is not allowed: must be two different finite numbers")
    if not 0 < resolution < abs(hi - lo):
        raise ConfigError(f"resolution = {resolution!r} is not allowed: must be positive and below the "
                          "interval's length")
    check_progress(progress)
    system.replace(**{parameter: lo})         # a model that refuses the value says so before anything runs
    with SpanBar((lo, hi), lo, parameter, enabled=progress is not False, delay=delay_of(progress)) as bar:
        return located(system, parameter, (lo, hi), state, period, resolution, transient, bar)


def located(system, parameter: str, interval: tuple, state, period, resolution: float, transient: int,
            on_iterate) -> Located:
    """:func:`bifurcations` of checked arguments on a system, every Newton iterate's parameter value reported to
    ``on_iterate`` (a bar, or a caller's own display: the refinement's heartbeat)."""
    lo, hi = interval
    family, points, n = system.orbit_problem(state, int(transient), period, parameter, lo)
    try:
        found, continued = continue_and_locate(family, points, n, (lo, hi), resolution, on_iterate=on_iterate)
    except AnalysisError as exc:
        raise AnalysisError(f"the period-{n} orbit at {parameter} = {lo} could not be continued: {exc}") from None
    return Located([replace(point, parameter=parameter) for point in found], continued)
