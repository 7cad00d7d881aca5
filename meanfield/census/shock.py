"""The minimal critical shock of an attractor: the smallest push of a state on it that sends the trajectory to
another attractor (docs/basins.md §8; the "minimal critical shock" of nonlocal stability, Halekotte & Feudel,
Sci. Rep. 10, 11783 (2020)).

The push δ moves the state's window (the attention model: its attention window A, L×M, the positional window
kept; a :class:`meanfield.Map`: its state vector); its size is the max norm ‖δ‖∞ = max |δ_ij| over the
window's entries ("every entry of the context moved by at most r"). The search, over ``phases`` points of the
attractor (a cycle's successive states; one state of an aperiodic set) and ``directions`` random directions u
(each entry uniform in [−1, 1], scaled to ‖u‖∞ = 1; direction d from Philox keyed by (seed, d)):

1. scan: every ray (phase, u) is tried at the radii r_j = j·radius/scan, j = 1 … scan, all in one kernel call;
   the first r_j whose start is not assigned to the attractor (:func:`meanfield.census.basins.assign_tails`:
   another attractor, or unsettled) brackets the ray's exit with r_{j−1} (a ray that does not leave within
   ``radius`` has none);
2. bisection of every bracket (between a radius that stays and one that leaves: it converges to a crossing
   of the basin's boundary inside the bracket), all rays in one kernel call per round, until it is narrower
   than ``tol · radius``;
3. the minimal critical shock is the smallest exit radius over the rays (the upper end of its bracket), with
   its phase, direction and destination.

It is an upper bound of the true minimum (directions are sampled; the scan can step over a sliver of another
basin thinner than radius/scan), exact to the bisection's tolerance along the rays it finds. Every start runs
on its own kernel lane and the directions are counter-based, so the result does not depend on the batching.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..model.spec import require_finite, require_int
from ..model.state import State
from ..options import Compute, check_compute
from ..short_repr import short_repr
from ..systems import as_system
from ..systems.starts import start_generator
from .basins import KnownAttractors, assign_tails
from .options import Tolerances, check_tolerances


@short_repr
@dataclass(frozen=True)
class ShockSearch:
    """How far and how finely the shock is searched (module docstring): rays out to ``radius`` (max norm),
    ``directions`` random directions at each of ``phases`` points of the attractor, ``scan`` radii per ray, then
    bisection to ``tol · radius``; directions from the counter-based generators of ``seed``; a pushed start has
    left the attractor when the census's ``tolerances`` do not assign its tail to it."""

    radius: float = 1.0
    directions: int = 32
    phases: int = 24
    scan: int = 16
    tol: float = 1e-3
    seed: int = 0
    tolerances: Tolerances = Tolerances()

    def __post_init__(self):
        """A ConfigError naming the first field that is not allowed (a record checks itself when it is made)."""
        radius = require_finite("radius", self.radius, "a number > 0")
        tol = require_finite("tol", self.tol, "a number in (0, 1)")
        if radius <= 0:
            raise ConfigError(f"radius = {self.radius!r} is not allowed: must be a number > 0")
        if not 0 < tol < 1:
            raise ConfigError(f"tol = {self.tol!r} is not allowed: must be a number in (0, 1)")
        for name, low in (("directions", 1), ("phases", 1), ("scan", 1), ("seed", 0)):
            object.__setattr__(self, name, require_int(name, getattr(self, name), low))
        object.__setattr__(self, "radius", radius)
        object.__setattr__(self, "tol", tol)
        check_tolerances(self.tolerances)


@short_repr
@dataclass(frozen=True)
class Shock:
    """A minimal critical shock: its size ``radius`` (max norm over the window; inf when no ray left within
    the searched radius), the ``phase`` and the push ``delta`` (window-shaped) that reach it, the
    ``destination`` id (−1 unsettled), and ``radii`` (phases, directions), every ray's exit radius (inf: none)."""

    radius: float
    phase: int
    delta: np.ndarray | None
    destination: int
    radii: np.ndarray


def _window(state) -> np.ndarray:
    return state.att if isinstance(state, State) else np.asarray(state, dtype=np.float64)


def _pushed(state, delta: np.ndarray):
    """``state`` with its window moved by ``delta`` (the attention model keeps its PE window and controller)."""
    if isinstance(state, State):
        return State(att=state.att + delta, pe=state.pe, control=state.control)
    return np.asarray(state, dtype=np.float64) + delta


def _directions(shape: tuple, n: int, seed: int) -> np.ndarray:
    """``n`` directions of ‖u‖∞ = 1, direction d from its own counter-based generator (module docstring)."""
    out = np.array([start_generator(seed, d).uniform(-1.0, 1.0, shape) for d in range(n)])
    return out / np.abs(out).reshape(n, -1).max(axis=1).reshape((n,) + (1,) * len(shape))


def _phases(system, state, period: int, phases: int, backend: str) -> list:
    """``phases`` successive states of the attractor from ``state`` (at most its period; one when aperiodic)."""
    count = max(1, min(phases, period)) if period > 0 else 1
    return [state] + [system.run([state], j, j - 1, series=False, compute=Compute(backend=backend)).final_state(0)
                      for j in range(1, count)]


def minimal_critical_shock(model, attractors: KnownAttractors, k: int, state, steps: int, transient: int, *,
                           search: ShockSearch = ShockSearch(), compute: Compute = Compute()) -> Shock:
    """The minimal critical shock of attractor ``k`` of ``attractors`` (module docstring), from ``state``, a
    state on it (a census's ``Attractor.state``); every pushed start runs ``steps`` iterations and its tail from
    ``transient`` on is assigned. ``model``: a ModelSpec or a :class:`meanfield.Map`; ``search``: the
    rays (:class:`ShockSearch`), checked with everything else before anything runs; ``compute.backend`` runs
    them."""
    if not isinstance(search, ShockSearch):
        raise ConfigError(f"search = {search!r} is not allowed: must be a meanfield.census.ShockSearch")
    backend = check_compute(compute, "minimal_critical_shock", "chunk", "progress").backend
    search.tolerances.check_run(steps, transient)
    k = require_int("k", k, 0, len(attractors.period) - 1)
    max_period, rtol = search.tolerances.max_period, search.tolerances.rtol
    radius, tol, n_dir, n_scan = search.radius, search.tol, search.directions, search.scan
    system = as_system(model)
    origins = _phases(system, state, int(attractors.period[k]), search.phases, backend)
    units = _directions(_window(state).shape, n_dir, search.seed)
    rays = [(p, d) for p in range(len(origins)) for d in range(n_dir)]

    def leaves(pushes: list) -> np.ndarray:
        """The id of every (ray index, radius) push."""
        starts = [_pushed(origins[rays[i][0]], r * units[rays[i][1]]) for i, r in pushes]
        run = system.run(starts, steps, transient, series=False, compute=Compute(backend=backend))
        return assign_tails(run.states, attractors, max_period=max_period, rtol=rtol)

    grid = radius * np.arange(1, n_scan + 1) / n_scan
    ids = leaves([(i, r) for i in range(len(rays)) for r in grid]).reshape(len(rays), n_scan)
    out = ids != k
    first = np.where(out.any(axis=1), out.argmax(axis=1), -1)
    found = np.flatnonzero(first >= 0)
    lo, hi = grid[first[found]] - radius / n_scan, grid[first[found]]
    where = ids[found, first[found]]
    while found.size and np.max(hi - lo) > tol * radius:
        mid = (lo + hi) / 2
        got = leaves(list(zip(found, mid)))
        left = got != k
        hi, lo = np.where(left, mid, hi), np.where(left, lo, mid)
        where = np.where(left, got, where)
    radii = np.full(len(rays), np.inf)
    radii[found] = hi
    if not found.size:
        return Shock(radius=np.inf, phase=-1, delta=None, destination=-1, radii=radii.reshape(len(origins), n_dir))
    best = int(np.argmin(hi))
    phase, d = rays[found[best]]
    return Shock(radius=float(hi[best]), phase=phase, delta=hi[best] * units[d], destination=int(where[best]),
                 radii=radii.reshape(len(origins), n_dir))


__all__ = ["Shock", "ShockSearch", "minimal_critical_shock"]
