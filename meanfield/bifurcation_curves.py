"""Two-parameter bifurcation curves of the attention map or a user's map (docs/bifurcations.md §8–§10).

A fold, period-doubling or Neimark–Sacker point returned by :func:`meanfield.bifurcations` (located along one
parameter, :attr:`~meanfield.analysis.bifurcations.Bifurcation.parameter`) is continued in a second parameter on the
minimally extended system of :mod:`meanfield.analysis.curves`, with the normal-form coefficient per point
(:mod:`meanfield.analysis.normal_forms`) and the codim-2 points found. For the attention model the cycle is the
N-point orbit of :mod:`meanfield.attention_orbits` (point i mapped with the PE phase i), the state derivatives
the kernels' analytic Jacobians, the map at α = (α_1, α_2) the model with both parameters replaced. The PE
phase of the point's first window is not stored with it: of the L rotations of the PE window of the state the
point was located from (``state``, default the model's checkpoint), the one under which the point's windows are a
cycle (smallest multiple-shooting residual) is used, and none fitting is refused.
"""
from __future__ import annotations

import math

import numpy as np

from .analysis.bifurcations import KINDS, Bifurcation, crossing_indicators
from .analysis.curves import MAX_POINTS, START_TOLERANCE, Curve, trace_curve
from .errors import ConfigError
from .model.spec import require_int, require_interval
from .model.state import State
from .progress import SpanBar, check_progress, delay_of
from .systems import as_system


def _check_point(point, system) -> None:
    """ConfigError unless ``point`` is a located bifurcation of ``system``'s kind (stored fields only)."""
    if not isinstance(point, Bifurcation) or point.kind not in KINDS:
        raise ConfigError(f"point = {point!r} is not allowed: must be a fold, period_doubling or neimark_sacker "
                          "point returned by meanfield.bifurcations")
    if point.parameter is None or not isinstance(point.parameter, str):
        raise ConfigError(f"point.parameter = {point.parameter!r} is not allowed: must name the parameter the point "
                          "was located in (a point returned by meanfield.bifurcations)")
    tau = crossing_indicators(np.asarray(point.multipliers))[KINDS.index(point.kind)]
    if not abs(tau) <= START_TOLERANCE:
        raise ConfigError(f"point = {point.kind} at {point.parameter} = {point.value!r} is not allowed: its "
                          f"multipliers are not at a {point.kind} (test function {tau:.3g}, must be ≤ "
                          f"{START_TOLERANCE:g}); pass a point returned by meanfield.bifurcations")
    size = system.size
    if np.ndim(point.points) != 2 or np.shape(point.points)[1] != size:
        raise ConfigError(f"point.points: shape {np.shape(point.points)} is not allowed: must be (period, {size}) "
                          "for this model")


def _check(system, point, parameter, interval, state, progress, max_step, max_points) -> tuple[float, float]:
    """Every argument checked before any computation; returns the interval."""
    system.index(parameter)
    require_int("max_points", max_points, 1)
    if max_step is not None and not (isinstance(max_step, int | float) and 0 < max_step < math.inf):
        raise ConfigError(f"max_step = {max_step!r} is not allowed: must be a finite number > 0 or None")
    _check_point(point, system)
    if parameter == point.parameter:
        raise ConfigError(f"parameter = {parameter!r} is not allowed: the point was located in it; the curve needs "
                          "a second parameter")
    current = system.value(parameter)
    lo, hi = require_interval("interval", interval, parameter, current)
    if state is not None and not isinstance(state, State):
        raise ConfigError(f"state = {state!r} is not allowed: must be a meanfield.State or None")
    check_progress(progress)
    system.replace(**{parameter: lo})  # a model that refuses the parameter (gamma set with beta_att) says so now
    return lo, hi


def bifurcation_curve(model, point: Bifurcation, parameter: str, interval, *,
                      state: State | None = None, max_step: float | None = None, max_points: int = MAX_POINTS,
                      progress: bool | None = None) -> Curve:
    """Continue a point returned by :func:`meanfield.bifurcations` in a second parameter (docs/bifurcations.md
    §10).

    Parameters
    ----------
    model : ModelSpec or Map
        The model the point was located on (or it as a system, docs/architecture.md §2), at the second
        parameter's start value.
    point : Bifurcation
        A fold, period-doubling or Neimark–Sacker point of ``mf.bifurcations(model, first, …)``.
    parameter : str
        The second parameter (a scalar model parameter, or one of the Map's); ``model``'s value of it must lie
        in ``interval``.
    interval : (float, float)
        The range of the second parameter; the curve is followed from the point in both directions until it
        leaves the range (or ``max_points`` steps each way).
    max_step : float, optional
        Largest arclength step (default 1/25 of the interval's length).
    max_points : int
        Most continuation steps in each direction.
    progress : bool or None
        A bar on stderr, the share of ``interval`` the curve has covered: True at once, None once the
        continuation has run :data:`~meanfield.progress.PROGRESS_DELAY` seconds (the default, as every long call of
        the package), False never.

    Returns
    -------
    ~meanfield.analysis.curves.Curve
        ``parameters`` = (the point's parameter, ``parameter``); ``values`` (k, 2) both parameters along the
        curve, ``period``, ``points``, ``multipliers``, ``coefficients`` (c or l₁ per point) and
        ``criticality``, and ``special``, the codim-2 points.
    """
    system = as_system(model)
    lo, hi = _check(system, point, parameter, interval, state, progress, max_step, max_points)
    names = (point.parameter, parameter)
    family, start = system.curve_family(point, names, state), system.value(parameter)
    with SpanBar((lo, hi), start, parameter, enabled=progress is not False, delay=delay_of(progress)) as bar:
        return trace_curve(family, point.kind, np.asarray(point.points, dtype=np.float64), (point.value, start),
                           (lo, hi), parameters=names, max_step=max_step, max_points=max_points, on_iterate=bar)
