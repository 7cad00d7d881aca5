"""Periodic orbits, multipliers and located bifurcations of the attention map (docs/bifurcations.md §5).

The map of docs/model.md §3 is forced by the positional encoding: the PE window rotates with period L and
does not depend on the attention window A, so the continuous state is A (L·M numbers, row-major) and step t
applies the map F_{t mod L}(A) = A' of the PE phase Π_t = Π_0 rotated t times. A cycle of A whose period q
locks to the forcing is a fixed point of the N-step map with N = lcm(q, L): the multiple-shooting Newton of
:mod:`meanfield.analysis.orbits` runs over N points, point i with the map of phase i. The images and the
analytic Jacobians ∂A'/∂A (docs/model.md §4) of all N points come from one call of the compiled kernels
(:func:`meanfield.kernels.cpu.images_and_jacobians`) — no finite differences in the state. The parameter derivative
used by the continuation's predictor is a central difference (docs/bifurcations.md §2).
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .analysis import Thresholds, find_cycle
from .analysis import locate_bifurcations as locate_map_bifurcations
from .analysis import periodic_orbit as map_periodic_orbit
from .analysis.bifurcations import Bifurcation, continue_and_locate
from .analysis.maps import Map
from .analysis.orbits import TOLERANCE, PeriodicOrbit, check_period, orbit_from
from .errors import AnalysisError, ConfigError
from .model.equations import mean_field_step
from .model.layout import map_tables, point_parameters
from .model.spec import SCALAR_PARAMETERS, Control, ModelSpec
from .model.state import State
from .progress import SpanBar
from .simulation import checkpoint_start, simulate_batch

#: Steps iterated from the start before Newton (and before the period is detected): enough for the rest
#: cycle of the paper model to settle from its checkpoint at β_o ≥ 1.2 (multiplier modulus ≤ 0.995 per L steps).
TRANSIENT = 20_000

#: Periods over which :func:`confirm_cycle` takes the envelope of the distance to a cycle.
WINDOW = 64


def _pe_window(model: ModelSpec, state: State) -> np.ndarray:
    return np.asarray(state.pe, dtype=np.float64) if model.pe_bits else np.zeros((model.context, 0))


def attention_family(model: ModelSpec, parameter: str | tuple | None, pe0: np.ndarray):
    """``family(value)`` → ``evaluate(points)`` for :mod:`meanfield.analysis.orbits`: point i of an orbit is
    the window A (flattened) at PE phase i, mapped with ``model`` at ``parameter = value`` (a tuple of names
    takes a tuple of values)."""
    from .kernels.cpu import images_and_jacobians

    shape = (model.context, model.n_features)
    phases = np.stack([np.roll(pe0, i, axis=0) for i in range(model.context)])
    shared = map_tables(model)                  # the scalar parameters leave the tables unchanged

    def family(value=None):
        names = (parameter,) if isinstance(parameter, str) else parameter
        values = (value,) if isinstance(parameter, str) else value
        at_value = model if parameter is None else model.replace(**dict(zip(names, values)))
        tables = (*shared, point_parameters(at_value))

        def evaluate(points, with_images=True):
            n = points.shape[0]
            images, jacobians = images_and_jacobians(*tables, phases[np.arange(n) % len(phases)],
                                                     points.reshape(n, *shape))
            return (images if with_images else None), jacobians

        return evaluate

    return family


def _system_model(system):
    """The ModelSpec of an attention system (the census's :class:`~meanfield.census.system.AttentionSystem`
    holds it as ``model``; the census sits above this module), anything else as it is."""
    inner = getattr(system, "model", None)
    return inner if isinstance(inner, ModelSpec) else system


def _settle(model: ModelSpec, state: State, transient: int) -> State:
    """``transient`` steps from ``state`` (at least enough to grow the window to L rows) by the compiled kernel,
    which computes the map of :func:`~meanfield.model.equations.mean_field_step` to rounding, 200× faster; like
    the orbit's Newton, without PID control."""
    state = state.check(model)
    steps = max(transient, model.context - np.asarray(state.att).shape[0])
    pe = _pe_window(model, state) if model.pe_bits else []
    if steps == 0:
        return State(att=np.asarray(state.att, dtype=np.float64), pe=pe)
    run = simulate_batch(model.replace(control=Control()), steps, steps - 1, start=State(att=state.att, pe=pe),
                         record=(), progress=False)
    return State(att=run.final_att[0], pe=run.final_pe[0] if model.pe_bits else [])


def _orbit_start(model: ModelSpec, state: State, period: int) -> np.ndarray:
    """The N windows visited from ``state`` (full window), flattened: Newton's starting points."""
    att, pe = state.att, _pe_window(model, state)
    points = np.empty((period, att.size))
    for i in range(period):
        points[i] = att.ravel()
        att, pe, _ = mean_field_step(model, att, pe)
    return points


def _locked_period(model: ModelSpec, period) -> int:
    period = check_period(period)
    return math.lcm(period, model.context) if model.pe_bits else period


def _detected_period(model: ModelSpec, state: State, max_period: int = 2000) -> int:
    """The cycle's period N (a multiple of L when the model has a PE) that the classifier's cycle criterion
    (:func:`meanfield.analysis.find_cycle` with :class:`~meanfield.analysis.Thresholds`, docs/classification.md
    §2) finds in 2·``max_period`` windows from ``state``; a ConfigError when it finds none (not near a cycle)."""
    th = Thresholds()
    cycle = find_cycle(_orbit_start(model, state, 2 * max_period), th.period_rtol, th.converged_rtol,
                       th.converge_decades, th.converge_r2, max_period)
    if cycle.period is None:
        raise ConfigError(f"period = None is not allowed here: no cycle of period ≤ {max_period} found after "
                          f"{TRANSIENT} steps from this start; pass period= (and a state near the cycle)")
    return _locked_period(model, cycle.period)


def _map_settled(system: Map, state, transient: int) -> np.ndarray:
    """A Map's ``state`` (default its own) after ``transient`` steps."""
    start = system.state if state is None else np.asarray(state, dtype=np.float64)
    return system.run([start], int(transient) + 1, int(transient)).states[0, 0] if transient else start


def _map_period(system: Map, start: np.ndarray, max_period: int = 2000) -> int:
    """The period the classifier's cycle criterion finds in 2·``max_period`` steps of a Map from ``start``."""
    th = Thresholds()
    cycle = find_cycle(system.run([start], 2 * max_period, 0).states[0], th.period_rtol, th.converged_rtol,
                       th.converge_decades, th.converge_r2, max_period)
    if cycle.period is None:
        raise ConfigError(f"period = None is not allowed here: no cycle of period ≤ {max_period} found from this "
                          "start; pass period= (and a state near the cycle)")
    return cycle.period


def periodic_orbit(model: ModelSpec | Map, state: State | None = None, period: int | None = None, *,
                   transient: int = 0) -> PeriodicOrbit:
    """The periodic orbit of the attention map through (or near) ``state``.

    Parameters
    ----------
    model : ModelSpec or Map
        The attention model, or a user's map (:class:`meanfield.analysis.Map`: ``state`` an array, default the
        map's own, iterated ``transient`` steps; its period detected as below, without a forcing).
    state : State, optional
        A state on or near the orbit (default: the model's checkpoint, iterated ``TRANSIENT`` steps).
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
    model = _system_model(model)
    if period is not None:
        check_period(period)                    # before anything runs
    if isinstance(model, Map):
        start = _map_settled(model, state, transient)
        return map_periodic_orbit(model.step, model.jacobian, start,
                                  _map_period(model, start) if period is None else period, model.vector())
    if state is None:
        state, transient = checkpoint_start(model, "state"), max(transient, TRANSIENT)
    settled = _settle(model, state, int(transient))
    period = _detected_period(model, settled) if period is None else _locked_period(model, period)
    family = attention_family(model, None, _pe_window(model, settled))
    return orbit_from(family(), _orbit_start(model, settled, period))


def _distance_envelope(model: ModelSpec, state: State, orbit: PeriodicOrbit, cycles: int) -> float:
    """max over ``cycles`` periods from ``state`` (a full window) of the largest entry of A_t − (the orbit's point
    at t), the windows A_t from the compiled kernel (as :func:`_settle`)."""
    count, att = cycles * orbit.period, np.asarray(state.att, dtype=np.float64)
    rows = att[::-1]                                          # oldest first
    if count > 1:
        run = simulate_batch(model.replace(control=Control()), count - 1, 0, record=("att",), progress=False,
                             start=State(att=att, pe=_pe_window(model, state) if model.pe_bits else []))
        rows = np.concatenate([rows, run.records["att"][0]])
    windows = sliding_window_view(rows, att.shape[0], axis=0)[:, :, ::-1]      # (count, M, L), newest first
    flat = windows.transpose(0, 2, 1).reshape(count, -1)
    return float(np.abs(flat - orbit.points[np.arange(count) % orbit.period]).max())


def confirm_cycle(model: ModelSpec, state: State, period: int, *, max_steps: int = 100_000) -> PeriodicOrbit | None:
    """The stable period-``period`` orbit that ``state`` is converging to, or None (docs/bifurcations.md §7).

    Near a fold, flip or Neimark–Sacker point a stable cycle attracts with a multiplier close to the unit
    circle, so a run ends still approaching it and its series alone is undecided. The cycle is confirmed when
    Newton started from ``state`` converges, every multiplier has modulus < 1, and ``state`` lies on it (to
    Newton's tolerance) or its distance to the orbit decays as the multipliers say: its envelope (the largest distance
    over WINDOW periods, so that a rotating approach counts once per turn) after K periods, K the periods in which
    max|μ|^K halves (at most ``max_steps`` steps), has come down at least half of the predicted way. A saddle's cycle,
    another attractor's, or a cycle whose approach is too slow to see within ``max_steps`` steps is not confirmed.
    """
    state = state.check(model)
    if np.asarray(state.att).shape[0] < model.context:
        return None
    try:
        orbit = periodic_orbit(model, state, period)
    except (AnalysisError, ConfigError):
        return None
    if not orbit.stable:
        return None
    extent = max(float(np.ptp(orbit.points)), 1e-12)
    distance = float(np.abs(np.asarray(state.att, dtype=np.float64).ravel() - orbit.points[0]).max())
    if distance <= TOLERANCE * max(1.0, extent):
        return orbit
    largest = float(np.abs(orbit.multipliers[0]))
    periods = int(np.clip(np.ceil(np.log(0.5) / np.log(largest)), WINDOW, max_steps // orbit.period))
    predicted = largest ** periods
    early = _distance_envelope(model, state, orbit, WINDOW)
    later = _distance_envelope(model, _settle(model, state, periods * orbit.period), orbit, WINDOW)
    return orbit if later <= early * (1 + predicted) / 2 else None


class Located(list):
    """The located bifurcations (a list of :class:`Bifurcation`, in the order met along the branch) and the
    continued ``branch``: per continuation point "value", "points" (the orbit's windows, (N, L·M)),
    "multipliers" and "stable" (None for a :class:`~meanfield.analysis.Map`)."""

    def __init__(self, found: list[Bifurcation], branch: dict | None):
        super().__init__(found)
        self.branch = branch


def bifurcations(model: ModelSpec | Map, parameter: str, interval, *, state: State | None = None,
                 period: int | None = None, resolution: float = 1e-10, transient: int = TRANSIENT,
                 progress=False) -> Located:
    """Continue a periodic orbit of the attention map along ``parameter`` over ``interval`` and locate its
    folds, period doublings and Neimark–Sacker points (docs/bifurcations.md).

    Parameters
    ----------
    model : ModelSpec or Map
        The attention model, or a user's map (:class:`meanfield.analysis.Map`: ``state`` an array near the
        orbit, default the map's own; no ``branch``).
    parameter : str
        A scalar model parameter ("beta_o", "beta_att", "scaling_att", "scaling_o", "epsilon", "gamma"), or one of
        the Map's parameters.
    interval : (float, float)
        The continuation runs from ``interval[0]`` to ``interval[1]``.
    state : State, optional
        A state near the orbit at ``parameter = interval[0]``; default the model's checkpoint (the rest cycle
        of the paper model, period L).
    period : int, optional
        The cycle's period in steps (default: detected after ``transient`` steps).
    resolution : float
        Accuracy of the located parameter values.
    transient : int
        Steps iterated from ``state`` at ``interval[0]`` before Newton.
    progress : bool or ~collections.abc.Callable
        True: a bar on stderr, the share of ``interval`` the continuation has covered; a callable: called with
        the parameter value of every Newton iterate (a caller's own display).

    Returns
    -------
    ~meanfield.periodic_orbits.Located
        A list of :class:`~meanfield.analysis.Bifurcation` (``kind``, ``value``, ``multipliers``, ``period`` —
        the N of the orbit —, ``rotation_number`` for Neimark–Sacker: turns of the critical multiplier per N
        steps) with the continued
        branch as ``.branch``.
    """
    model = _system_model(model)
    if period is not None:
        check_period(period)                    # before anything runs
    if isinstance(model, Map):
        model.index(parameter)
    elif parameter not in SCALAR_PARAMETERS:
        raise ConfigError(f"parameter = {parameter!r} is not allowed: must be one of {', '.join(SCALAR_PARAMETERS)}")
    try:
        lo, hi = (float(v) for v in interval)
    except (TypeError, ValueError):
        raise ConfigError(f"interval = {interval!r} is not allowed: must be two numbers (start, end)") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo == hi:
        raise ConfigError(f"interval = {interval!r} is not allowed: must be two different finite numbers")
    if not 0 < resolution < abs(hi - lo):
        raise ConfigError(f"resolution = {resolution!r} is not allowed: must be positive and below the "
                          "interval's length")
    if not (isinstance(progress, bool) or callable(progress)):
        raise ConfigError(f"progress = {progress!r} is not allowed: must be True, False or a callable")
    start_model = model.replace(**{parameter: lo})
    with SpanBar((lo, hi), lo, parameter, enabled=progress is True) as bar:
        on_iterate = progress if callable(progress) else bar
        if isinstance(model, Map):
            start = _map_settled(start_model, state, transient)
            n = _map_period(start_model, start) if period is None else period
            found = locate_map_bifurcations(model.step, model.jacobian, start, n, model.index(parameter), (lo, hi),
                                            params=model.vector(), resolution=resolution, on_iterate=on_iterate)
            return Located([replace(point, parameter=parameter) for point in found], None)
        settled = _settle(start_model, checkpoint_start(model, "state") if state is None else state, int(transient))
        n = _detected_period(start_model, settled) if period is None else _locked_period(model, period)
        family = attention_family(model, parameter, _pe_window(model, settled))
        try:
            found, continued = continue_and_locate(family, _orbit_start(start_model, settled, n), n, (lo, hi),
                                                   resolution, on_iterate=on_iterate)
        except AnalysisError as exc:
            raise AnalysisError(f"the period-{n} orbit at {parameter} = {lo} could not be continued: {exc}") from None
    return Located([replace(point, parameter=parameter) for point in found], continued)
