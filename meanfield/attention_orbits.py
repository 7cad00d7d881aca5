"""The attention map's periodic-orbit problems (docs/bifurcations.md §5): what
:class:`~meanfield.systems.AttentionSystem` hands the generic tools of :mod:`meanfield.periodic_orbits` and
:mod:`meanfield.bifurcation_curves`.

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

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .analysis.bifurcations import Bifurcation
from .analysis.evidence import settled_period
from .analysis.orbits import TOLERANCE, PeriodicOrbit, orbit_from, residuals
from .errors import AnalysisError, ConfigError
from .model.equations import mean_field_step
from .model.layout import map_tables, point_parameters
from .model.spec import Control, ModelSpec, require_int
from .model.state import State
from .options import Compute
from .simulation import checkpoint_start, simulate_batch

#: Steps iterated from the start before Newton (and before the period is detected): enough for the rest
#: cycle of the paper model to settle from its checkpoint at β_o ≥ 1.2 (multiplier modulus ≤ 0.995 per L steps).
TRANSIENT = 20_000
#: Periods over which :func:`confirm_cycle` takes the envelope of the distance to a cycle.
WINDOW = 64
#: A located point's windows are a cycle to Newton's tolerance; under a wrong PE phase they miss by O(ε).
CYCLE_MISFIT = 1e-8


def pe_window(model: ModelSpec, state: State) -> np.ndarray:
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


def settle(model: ModelSpec, state: State, transient: int) -> State:
    """``transient`` steps from ``state`` (at least enough to grow the window to L rows) by the compiled kernel,
    which computes the map of :func:`~meanfield.model.equations.mean_field_step` to rounding, 200× faster; like
    the orbit's Newton, without PID control."""
    state = state.check(model)
    steps = max(transient, model.context - np.asarray(state.att).shape[0])
    pe = pe_window(model, state) if model.pe_bits else []
    if steps == 0:
        return State(att=np.asarray(state.att, dtype=np.float64), pe=pe)
    run = simulate_batch(model.replace(control=Control()), steps, steps - 1, start=State(att=state.att, pe=pe),
                         record=(), compute=Compute(progress=False))
    return State(att=run.final_att[0], pe=run.final_pe[0] if model.pe_bits else [])


def orbit_start(model: ModelSpec, state: State, period: int) -> np.ndarray:
    """The N windows visited from ``state`` (full window), flattened: Newton's starting points."""
    att, pe = state.att, pe_window(model, state)
    points = np.empty((period, att.size))
    for i in range(period):
        points[i] = att.ravel()
        att, pe, _ = mean_field_step(model, att, pe)
    return points


def locked_period(model: ModelSpec, period) -> int:
    period = require_int("period", period, 1)
    return math.lcm(period, model.context) if model.pe_bits else period


def detected_period(model: ModelSpec, state: State, max_period: int = 2000) -> int:
    """The cycle's period N (a multiple of L when the model has a PE) that the classifier's cycle criterion finds
    in 2·``max_period`` windows from ``state`` (:func:`meanfield.analysis.evidence.settled_period`; a ConfigError
    when it finds none)."""
    return locked_period(model, settled_period(orbit_start(model, state, 2 * max_period), max_period))


def _distance_envelope(model: ModelSpec, state: State, orbit: PeriodicOrbit, cycles: int) -> float:
    """max over ``cycles`` periods from ``state`` (a full window) of the largest entry of A_t − (the orbit's point
    at t), the windows A_t from the compiled kernel (as :func:`settle`)."""
    count, att = cycles * orbit.period, np.asarray(state.att, dtype=np.float64)
    rows = att[::-1]                                          # oldest first
    if count > 1:
        run = simulate_batch(model.replace(control=Control()), count - 1, 0, record=("att",),
                             compute=Compute(progress=False),
                             start=State(att=att, pe=pe_window(model, state) if model.pe_bits else []))
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
    require_int("period", period, 1)
    require_int("max_steps", max_steps, 1)
    state = state.check(model)
    if np.asarray(state.att).shape[0] < model.context:
        return None
    try:
        family, points, _ = orbit_problem(model, state, 0, period)
        orbit = orbit_from(family(), points)
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
    later = _distance_envelope(model, settle(model, state, periods * orbit.period), orbit, WINDOW)
    return orbit if later <= early * (1 + predicted) / 2 else None


def cycle_phase(model: ModelSpec, points: np.ndarray, pe: np.ndarray) -> tuple[np.ndarray, float]:
    """Of the L rotations of the PE window ``pe``, the one under which ``points`` (an orbit's windows, flattened,
    point i mapped with PE phase i) are a cycle of ``model``'s map: that rotation and its multiple-shooting
    residual."""
    rotations = [np.roll(pe, i, axis=0) for i in range(model.context)]
    misfit = [np.abs(residuals(points, attention_family(model, None, r)()(points)[0])).max() for r in rotations]
    best = int(np.argmin(misfit))
    return rotations[best], float(misfit[best])


def curve_family(model: ModelSpec, point: Bifurcation, names: tuple[str, str], state: State | None):
    """``family(α)`` of the model with both parameters replaced, at the PE phase the point's windows fit: of the
    L rotations of the PE window of ``state`` (default the model's checkpoint). ConfigError when none makes
    them a cycle (the point was located from another PE window)."""
    points = np.asarray(point.points, dtype=np.float64)
    source = model.checkpoint if state is None else state
    pe = pe_window(model, source) if source is not None else np.zeros((model.context, 0))
    phase, misfit = cycle_phase(model.replace(**{point.parameter: point.value}), points, pe)
    if not misfit <= CYCLE_MISFIT * max(1.0, np.abs(points).max()):
        where = "the model's checkpoint" if state is None else "state"
        raise ConfigError(f"state: the point's windows are no cycle under any rotation of the PE window of {where} "
                          f"(smallest residual {misfit:.3g}); pass the state the point was located from "
                          "(mf.bifurcations(..., state=...))")
    return attention_family(model, names, phase)


def orbit_problem(model: ModelSpec, state: State | None, transient: int, period: int | None,
                  parameter: str | None = None, value: float | None = None):
    """Newton's problem for the cycle through (or near) ``state`` of ``model`` at ``parameter = value`` (default
    the model as it is): ``(family, points, period)``, ``family`` over ``parameter`` at the PE phase of the
    settled state (:func:`attention_family`), ``points`` the N windows visited from it, N the locked period
    (given, or detected after ``transient`` steps). From the model's checkpoint (``state`` None) at least
    :data:`TRANSIENT` steps are iterated."""
    if state is not None and not isinstance(state, State):
        raise ConfigError(f"state = {state!r} is not allowed: must be a meanfield.State or None (the checkpoint)")
    at_value = model if parameter is None else model.replace(**{parameter: value})
    if state is None:
        state, transient = checkpoint_start(model, "state"), max(int(transient), TRANSIENT)
    settled = settle(at_value, state, int(transient))
    period = detected_period(at_value, settled) if period is None else locked_period(model, period)
    return attention_family(model, parameter, pe_window(model, settled)), orbit_start(at_value, settled, period), period
