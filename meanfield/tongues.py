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
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .analysis.curves import Curve
from .analysis.rotation import MIN_POINTS, rotation_number
from .bifurcation_curves import bifurcation_curve
from .errors import AnalysisError, ConfigError
from .model.spec import SCALAR_PARAMETERS, ModelSpec
from .model.state import State
from .periodic_orbits import bifurcations
from .simulation import simulate

#: Default half-width of the search for the locked cycle's folds along the first parameter.
SEARCH = 0.05
#: Stroboscopic points of the run that decides whether the state is locked (the rotation number's minimum × 4).
LOCK_POINTS = 4 * MIN_POINTS


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


def _check(model, state, parameters, interval, search) -> tuple[str, str, float, float]:
    """Every argument checked before any computation: the two parameter names and the interval."""
    if not isinstance(model, ModelSpec):
        raise ConfigError(f"model = {model!r} is not allowed: must be a ModelSpec (the attention model)")
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
    try:
        lo, hi = (float(v) for v in interval)
    except (TypeError, ValueError):
        raise ConfigError(f"interval = {interval!r} is not allowed: must be two numbers (low, high)") from None
    current = getattr(model, second)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi or not lo <= current <= hi:
        raise ConfigError(f"interval = {interval!r} is not allowed: must be two finite increasing numbers around "
                          f"the model's {second} = {current!r}")
    if not (isinstance(search, int | float) and math.isfinite(search) and search > 0):
        raise ConfigError(f"search = {search!r} is not allowed: must be a finite number > 0")
    model.replace(**{first: getattr(model, first), second: lo})  # a model that refuses a parameter says so now
    return first, second, lo, hi


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
        locked at some p/k with k ≥ 3 (:func:`meanfield.rotation_number`).
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
    first, second, lo, hi = _check(model, state, parameters, interval, search)
    run = simulate(model, LOCK_POINTS * model.context, start=state, record="att", progress=False)
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


__all__ = ["SEARCH", "TIP_AGREEMENT", "Tongue", "arnold_tongue"]
