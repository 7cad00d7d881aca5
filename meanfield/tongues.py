"""Arnold tongues of the attention map (docs/bifurcations.md §11).

Past a Neimark–Sacker curve the attractor of the L-step map is an invariant circle, the torus. Where its rotation
number locks to p/k the circle carries a cycle of the L-step map with k points (k·L steps of the map), and the
parameters where that cycle exists form an Arnold tongue. Its two sides are fold curves of the cycle: crossing
one, the stable cycle and its saddle partner on the circle annihilate and the orbit turns on (quasi-periodic
again). The tongue is traced from a state on the locked cycle: the cycle's folds are located along the first
parameter on both sides of the state's value (:func:`meanfield.bifurcations`) and each is continued in the second
(:func:`meanfield.bifurcation_curve`). The tongue of a resonance p:k ends at the point of the Neimark–Sacker curve
where the critical multipliers are e^{±2πip/k} (for k ≤ 4 a strong resonance, Kuznetsov §9.5); there the
k-cycle shrinks onto the cycle the circle grew from, and each side's continuation turns round there (onto the
other side or back along its own: the cycle is degenerate at that point, and which happens depends on the steps).
Each side is therefore kept from its fold to its turning point, an interior extreme of the second parameter,
and the tongue's ``tip`` is where the two sides turn, when they turn at the same point.

:func:`resonance_start` finds the locked cycle from the resonance point itself: where the rotation number of the
Neimark–Sacker curve's critical pair passes p/k, a little along the curve to either side, runs from the cycle the
circle grows from (slightly perturbed) measure the torus's rotation number at increasing distances from the curve,
and bisect on it until a run locks at p/k.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .analysis.curves import Curve
from .analysis.rotation import MIN_POINTS, rotation_number
from .attention_orbits import cycle_phase, pe_window
from .bifurcation_curves import bifurcation_curve
from .errors import AnalysisError, ConfigError
from .model.spec import SCALAR_PARAMETERS, ModelSpec, require_interval
from .model.state import State
from .options import Compute
from .periodic_orbits import bifurcations, periodic_orbit
from .simulation import simulate
from .systems import AttentionSystem, as_system

#: Default half-width of the search for the locked cycle's folds along the first parameter.
SEARCH = 0.05
#: Stroboscopic points of the run that decides whether the state is locked (the rotation number's minimum × 4).
LOCK_POINTS = 4 * MIN_POINTS
#: A run that measures a torus's rotation number near a resonance: steps, of which the first are its transient.
TORUS_RUN, TORUS_TRANSIENT = 300_000, 200_000
#: The first step away from the Neimark–Sacker curve (× max(1, |value|)) and the most doublings of it.
FIRST_STEP, DOUBLINGS = 1e-6, 14
#: Bisections of the first parameter before giving up on a lock.
BISECTIONS = 40
#: The runs near a resonance start this far (every window entry) from the cycle the circle grows from.
NUDGE = 1e-6


@dataclass(frozen=True, repr=False)
class Tongue:
    """An Arnold tongue: ``locked`` (p, k), the rotation number p/k of its cycle (turns per L steps),
    ``period`` the cycle's period in steps (k·L), ``sides`` the two fold curves (the one through the fold below
    the model's value of the first parameter first), ``tip`` the pair of parameters where both sides turn round
    (the resonance point; None when they do not turn at one point inside the interval)."""

    locked: tuple[int, int]
    period: int
    sides: tuple[Curve, Curve]
    tip: np.ndarray | None

    def __repr__(self) -> str:
        names = self.sides[0].parameters
        tip = "none inside the interval" if self.tip is None else \
            f"({names[0]}, {names[1]}) = ({self.tip[0]:.10g}, {self.tip[1]:.10g})"
        return (f"Tongue({self.locked[0]}:{self.locked[1]}, period {self.period} steps, sides of "
                f"{len(self.sides[0].values)} and {len(self.sides[1].values)} points, tip {tip})")


def _check(model, state, parameters, interval, search) -> tuple[ModelSpec, str, str, float, float]:
    """Every argument checked before any computation: the model, the two parameter names and the interval."""
    system = as_system(model)
    if not isinstance(system, AttentionSystem):                # a Map has no PE forcing to lock to
        raise ConfigError(f"model = {model!r} is not allowed: must be the attention model (a ModelSpec)")
    model = system.model
    if not isinstance(state, State):
        raise ConfigError(f"state = {state!r} is not allowed: must be a meanfield.State on the locked cycle")
    try:
        first, second = parameters
    except (TypeError, ValueError):
        raise ConfigError(f"parameters = {parameters!r} is not allowed: must be two parameter names") from None
    for name in (first, second):
        if name not in SCALAR_PARAMETERS:
            raise ConfigError(f"parameters = {parameters!r} is not allowed: each must be one of "
                              f"{', '.join(SCALAR_PARAMETERS)}")
    if first == second:
        raise ConfigError(f"parameters = {parameters!r} is not allowed: must be two different parameters")
    lo, hi = require_interval("interval", interval, second, getattr(model, second))
    if not (isinstance(search, int | float) and math.isfinite(search) and search > 0):
        raise ConfigError(f"search = {search!r} is not allowed: must be a finite number > 0")
    model.replace(**{first: getattr(model, first), second: lo})  # a model that refuses a parameter says so now
    return model, first, second, lo, hi


#: The two sides' turning points are one tip when they agree within this fraction of the interval's length.
TIP_AGREEMENT = 1e-4


def _up_to_turn(curve: Curve, start: np.ndarray, lo: float, hi: float) -> tuple[Curve, np.ndarray | None]:
    """The piece of ``curve`` from its end through ``start`` to its first interior extreme of the second parameter
    (where it turns round), and that point; the whole curve and None when it does not turn inside (lo, hi)."""
    second = curve.values[:, 1]
    at_start = int(np.abs(curve.values - start).sum(axis=1).argmin())
    for turn in (int(np.argmax(second)), int(np.argmin(second))):
        if lo < second[turn] < hi:
            break
    else:
        return curve, None
    part = slice(0, turn + 1) if at_start <= turn else slice(turn, None)
    kept = range(len(second))[part]
    special = [p for p in curve.special if int(np.abs(curve.values - p.values).sum(axis=1).argmin()) in kept]
    return replace(curve, values=curve.values[part], points=curve.points[part], multipliers=curve.multipliers[part],
                   neutral_saddle=curve.neutral_saddle[part], coefficients=curve.coefficients[part],
                   special=special), curve.values[turn].copy()


def arnold_tongue(model: ModelSpec, state: State, parameters=("beta_o", "beta_att"), interval=(0.5, 7.0), *,
                  search: float = SEARCH, max_step: float | None = None) -> Tongue:
    """The Arnold tongue of the locked cycle through ``state`` (module docstring; docs/bifurcations.md §11).

    Parameters
    ----------
    model : ModelSpec
        The attention model at a point inside the tongue.
    state : State
        A state on the locked cycle (e.g. the ``final_state`` of a long run there); its rotation number must be
        locked at some p/k with k ≥ 3 (:func:`meanfield.analysis.rotation_number`).
    parameters : (str, str)
        The parameter along which the folds are located (first) and the one the tongue is traced in (second).
    interval : (float, float)
        The range of the second parameter; it must contain the model's value.
    search : float
        The folds are searched for within this distance of the model's value of the first parameter.
    max_step : float, optional
        Largest arclength step of the sides' continuation (default 1/25 of ``interval``'s length).

    Returns
    -------
    ~meanfield.tongues.Tongue
    """
    model, first, second, lo, hi = _check(model, state, parameters, interval, search)
    run = simulate(model, LOCK_POINTS * model.context, start=state, record="att", compute=Compute(progress=False))
    rotation = rotation_number(run)
    if rotation.locked is None or rotation.locked[1] < 3:
        seen = f"ρ = {rotation.number:.6g} ± {rotation.stderr:.2g}" if rotation.locked is None else \
            f"locked at {rotation.locked[0]}/{rotation.locked[1]}"
        raise AnalysisError(f"state: not on a cycle locked on a torus ({seen}; a tongue needs p/k with k ≥ 3)")
    period = rotation.locked[1] * model.context
    start = run.final_state
    value = getattr(model, first)
    folds = []
    for end in (value - search, value + search):
        found = [b for b in bifurcations(model, first, (value, end), state=start, period=period, transient=0)
                 if b.kind == "fold"]
        if not found:
            raise AnalysisError(f"no fold of the period-{period} cycle between {first} = {value:.10g} and {end:.10g}: "
                                "widen search")
        folds.append(found[0])

    sides, turns = [], []
    for fold in folds:
        curve = bifurcation_curve(model.replace(**{first: fold.value}), fold, second, (lo, hi), state=start,
                                  max_step=max_step)
        side, turn = _up_to_turn(curve, np.array([fold.value, getattr(model, second)]), lo, hi)
        sides.append(side)
        turns.append(turn)
    tip = None
    if turns[0] is not None and turns[1] is not None and \
            np.abs(turns[0] - turns[1]).max() <= TIP_AGREEMENT * (hi - lo):
        tip = turns[0]
    return Tongue(rotation.locked, period, (sides[0], sides[1]), tip)


def _critical_rotation(curve: Curve) -> np.ndarray:
    """ρ = arg μ / 2π of the critical pair (|μ| nearest 1, Im μ ≥ 0) at every point of a Neimark–Sacker curve."""
    rho = np.empty(len(curve.values))
    for i, mu in enumerate(curve.multipliers):
        upper = mu[mu.imag >= 0]
        rho[i] = np.angle(upper[np.argmin(np.abs(np.abs(upper) - 1))]) / (2 * np.pi)
    return rho


def _torus_rotation(model: ModelSpec, start: State):
    """The rotation of the attractor a run from ``start`` reaches (None where it is not on a circle), and the
    run's final state."""
    run = simulate(model, TORUS_RUN, TORUS_TRANSIENT, start=start, record="att", compute=Compute(progress=False))
    try:
        return rotation_number(run), run.final_state
    except AnalysisError:
        return None, run.final_state


def _locks(rotation, fraction) -> bool | None:
    """True when ``rotation`` is locked at ``fraction``; None when it is no circle (no rotation, or a cycle of
    one or two points of the stroboscopic map other than ``fraction``); False otherwise."""
    if rotation is None or (rotation.locked is not None and rotation.locked[1] < 3 and rotation.locked != fraction):
        return None
    return rotation.locked == fraction


def _lock_along(model: ModelSpec, first: str, value: float, start: State, fraction: tuple[int, int]):
    """Runs at ``first`` = ``value`` ± a step doubled each time (``value`` on the curve), from ``start``, until one
    is locked at ``fraction`` or the torus's rotation number passes it (then bisection); the locked model and
    final state, or None."""
    target = fraction[0] / fraction[1]

    def measure(offset):
        at = model.replace(**{first: value + offset})
        rotation, final = _torus_rotation(at, start)
        return at, final, _locks(rotation, fraction), None if rotation is None else rotation.number - target

    for sign in (1.0, -1.0):
        offset, previous = FIRST_STEP * max(1.0, abs(value)) * sign, None
        for _ in range(DOUBLINGS):
            at, final, locks, gap = measure(offset)
            if locks is None:
                break                                       # no circle on this side
            if locks:
                return at, final
            if previous is not None and gap * previous[1] < 0:
                low, high, below = previous[0], offset, previous[1]
                for _ in range(BISECTIONS):
                    at, final, locks, gap = measure((low + high) / 2)
                    if locks:
                        return at, final
                    if locks is None or gap * below > 0:
                        low = (low + high) / 2
                    else:
                        high = (low + high) / 2
                return None
            previous = (offset, gap)
            offset *= 2
    return None


def resonance_start(model: ModelSpec, curve: Curve, locked: tuple[int, int], *,
                    state: State | None = None) -> tuple[ModelSpec, State]:
    """A model and a state on a cycle locked at p/k near the point where the Neimark–Sacker ``curve`` passes the
    rotation number p/k (module docstring), for :func:`arnold_tongue`.

    Parameters
    ----------
    model : ModelSpec
        The model the curve was traced for.
    curve : ~meanfield.analysis.curves.Curve
        A Neimark–Sacker curve of :func:`meanfield.bifurcation_curve`.
    locked : (int, int)
        The resonance p:k (k ≥ 3), e.g. (1, 4) at the curve's ``resonance_1:4`` point.
    state : State, optional
        The state the curve's point was located from (its PE window; default the model's checkpoint).

    Returns
    -------
    (ModelSpec, State)
        The model at the locked point and a state on its cycle (Newton's, from the end of the locked run).
    """
    if not isinstance(curve, Curve) or curve.kind != "neimark_sacker":
        raise ConfigError(f"curve = {curve!r:.60} is not allowed: must be a Neimark–Sacker curve of "
                          "meanfield.bifurcation_curve")
    try:
        p, k = (int(v) for v in locked)
    except (TypeError, ValueError):
        raise ConfigError(f"locked = {locked!r} is not allowed: must be (p, k), integers") from None
    if not (k >= 3 and 0 < p < k and math.gcd(p, k) == 1 and p / k <= 0.5):
        raise ConfigError(f"locked = {locked!r} is not allowed: must be p/k in lowest terms with k ≥ 3 and "
                          "0 < p/k ≤ 1/2")
    source = model.checkpoint if state is None else state
    if not isinstance(source, State):
        raise ConfigError(f"state = {state!r} is not allowed: must be a meanfield.State (the model has no "
                          "checkpoint)")
    target = p / k
    rho = _critical_rotation(curve)
    crossing = np.flatnonzero(np.diff(np.sign(rho - target)) != 0)
    if crossing.size == 0:
        raise AnalysisError(f"the curve's rotation number (from {rho.min():.6g} to {rho.max():.6g}) never passes "
                            f"{p}/{k}")
    first, second = curve.parameters
    middle = int(crossing[0])
    for reach in (1, 2, 4, 8):
        for index in (middle - reach + 1, middle + reach):
            if not 0 <= index < len(curve.values):
                continue
            value, at_second = curve.values[index]
            on_curve = model.replace(**{first: value, second: at_second})
            orbit = curve.points[index]
            phase, _ = cycle_phase(on_curve, orbit, pe_window(model, source))
            nudged = State(att=orbit[0].reshape(model.context, model.n_features) + NUDGE, pe=phase)
            found = _lock_along(on_curve, first, value, nudged, (p, k))
            if found is not None:          # near the tongue's side the run is still closing in: Newton's cycle
                at, final = found
                orbit = periodic_orbit(at, final, k * model.context)
                return at, State(att=orbit.points[0].reshape(model.context, model.n_features), pe=final.pe)
    raise AnalysisError(f"no run locked at {p}/{k} near the curve's {p}:{k} point: the tongue is too narrow there "
                        "for this search; start from a locked state (arnold_tongue)")


__all__ = ["SEARCH", "TIP_AGREEMENT", "Tongue", "arnold_tongue", "resonance_start"]
