"""Two-parameter bifurcation curves of the attention map or a user's map (docs/bifurcations.md §8–§10).

A fold, period-doubling or Neimark–Sacker point returned by :func:`meanfield.bifurcations` (located along one
parameter, :attr:`~meanfield.analysis.Bifurcation.parameter`) is continued in a second parameter on the
minimally extended system of :mod:`meanfield.analysis.curves`, with the normal-form coefficient per point
(:mod:`meanfield.analysis.normal_forms`) and the codim-2 points found. For the attention model the cycle is the
N-point orbit of :mod:`meanfield.periodic_orbits` (point i mapped with the PE phase i), the state derivatives
the kernels' analytic Jacobians, the map at α = (α_1, α_2) the model with both parameters replaced. The PE
phase of the point's first window is not stored with it: of the L rotations of the PE window of the state the
point was located from (``state``, default the model's checkpoint), the one under which the point's windows are a
cycle (smallest multiple-shooting residual) is used, and none fitting is refused.
"""
from __future__ import annotations

import numpy as np

from .analysis.bifurcations import KINDS, Bifurcation, crossing_indicators
from .analysis.curves import MAX_POINTS, START_TOLERANCE, Curve, trace_curve
from .analysis.maps import Map
from .analysis.orbits import numba_family, residuals
from .errors import ConfigError
from .model.spec import SCALAR_PARAMETERS, ModelSpec, require_interval
from .model.state import State
from .periodic_orbits import _pe_window, attention_family
from .progress import SpanBar

#: A located point's windows are a cycle to Newton's tolerance; under a wrong PE phase they miss by O(ε).
CYCLE_MISFIT = 1e-8


def _check_point(point, model) -> None:
    """ConfigError unless ``point`` is a located bifurcation of ``model``'s kind of system (stored fields only)."""
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
    size = model.size if isinstance(model, Map) else model.context * model.n_features
    if np.ndim(point.points) != 2 or np.shape(point.points)[1] != size:
        raise ConfigError(f"point.points: shape {np.shape(point.points)} is not allowed: must be (period, {size}) "
                          "for this model")


def _check(model, point, parameter, interval, state, progress) -> tuple[float, float]:
    """Every argument checked before any computation; returns the interval."""
    if isinstance(model, Map):
        model.index(parameter)
    elif isinstance(model, ModelSpec):
        if parameter not in SCALAR_PARAMETERS:
            raise ConfigError(f"parameter = {parameter!r} is not allowed: must be one of "
                              f"{', '.join(SCALAR_PARAMETERS)}")
    else:
        raise ConfigError(f"model = {model!r} is not allowed: must be a ModelSpec or a meanfield.Map")
    _check_point(point, model)
    if parameter == point.parameter:
        raise ConfigError(f"parameter = {parameter!r} is not allowed: the point was located in it; the curve needs "
                          "a second parameter")
    current = model.parameters[parameter] if isinstance(model, Map) else getattr(model, parameter)
    lo, hi = require_interval("interval", interval, parameter, current)
    if state is not None and not isinstance(state, State):
        raise ConfigError(f"state = {state!r} is not allowed: must be a meanfield.State or None")
    if not isinstance(progress, bool):
        raise ConfigError(f"progress = {progress!r} is not allowed: must be True or False")
    model.replace(**{parameter: lo})  # a model that refuses the parameter (gamma set with beta_att) says so now
    return lo, hi


def cycle_phase(model: ModelSpec, points: np.ndarray, pe: np.ndarray) -> tuple[np.ndarray, float]:
    """Of the L rotations of the PE window ``pe``, the one under which ``points`` (an orbit's windows, flattened,
    point i mapped with PE phase i) are a cycle of ``model``'s map: that rotation and its multiple-shooting
    residual."""
    rotations = [np.roll(pe, i, axis=0) for i in range(model.context)]
    misfit = [np.abs(residuals(points, attention_family(model, None, r)()(points)[0])).max() for r in rotations]
    best = int(np.argmin(misfit))
    return rotations[best], float(misfit[best])


def _attention_curve_family(model: ModelSpec, point: Bifurcation, names: tuple[str, str], state: State | None):
    """``family(α)`` of the model with both parameters replaced, at the PE phase the point's windows fit: of the
    L rotations of the PE window of ``state`` (default the model's checkpoint). ConfigError when none makes
    them a cycle (the point was located from another PE window)."""
    points = np.asarray(point.points, dtype=np.float64)
    source = model.checkpoint if state is None else state
    pe = _pe_window(model, source) if source is not None else np.zeros((model.context, 0))
    phase, misfit = cycle_phase(model.replace(**{point.parameter: point.value}), points, pe)
    if not misfit <= CYCLE_MISFIT * max(1.0, np.abs(points).max()):
        where = "the model's checkpoint" if state is None else "state"
        raise ConfigError(f"state: the point's windows are no cycle under any rotation of the PE window of {where} "
                          f"(smallest residual {misfit:.3g}); pass the state the point was located from "
                          "(mf.bifurcations(..., state=...))")
    return attention_family(model, names, phase)


def bifurcation_curve(model: ModelSpec | Map, point: Bifurcation, parameter: str, interval, *,
                      state: State | None = None, max_step: float | None = None, max_points: int = MAX_POINTS,
                      progress: bool = False) -> Curve:
    """Continue a point returned by :func:`meanfield.bifurcations` in a second parameter (docs/bifurcations.md
    §10).

    Parameters
    ----------
    model : ModelSpec or Map
        The model the point was located on, at the second parameter's start value.
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
    progress : bool
        A bar on stderr: the share of ``interval`` the curve has covered.

    Returns
    -------
    ~meanfield.analysis.Curve
        ``parameters`` = (the point's parameter, ``parameter``); ``values`` (k, 2) both parameters along the
        curve, ``period``, ``points``, ``multipliers``, ``coefficients`` (c or l₁ per point) and
        ``criticality``, and ``special``, the codim-2 points.
    """
    lo, hi = _check(model, point, parameter, interval, state, progress)
    names = (point.parameter, parameter)
    if isinstance(model, Map):
        indices = [model.index(name) for name in names]
        base = model.vector()

        def family(values):
            at = base.copy()
            at[indices] = values
            return numba_family(model.step, model.jacobian, at)()

        start = base[indices[1]]
    else:
        family = _attention_curve_family(model, point, names, state)
        start = getattr(model, parameter)
    with SpanBar((lo, hi), start, parameter, enabled=progress) as bar:
        return trace_curve(family, point.kind, np.asarray(point.points, dtype=np.float64), (point.value, start),
                           (lo, hi), parameters=names, max_step=max_step, max_points=max_points, on_iterate=bar)
