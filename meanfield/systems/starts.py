"""Ensembles of start States for an attractor census (docs/attractors.md §1).

Every random sampler draws start ``i`` from its own counter-based generator, NumPy's Philox keyed by
``SeedSequence((seed, i))``: start i is the same whatever other starts are drawn with it, in which chunk, on
which worker, or how many there are (``first`` offsets the counter, so starts ``first .. first + n - 1`` of a
long ensemble can be drawn alone).

Samplers (the names a run file's ``[attractors] sampler`` accepts, :data:`SAMPLERS`):

* ``"uniform"``: attention windows uniform in ``[low, high]`` per entry (a full window, D = L), with the
  positional window of the model's checkpoint (its positional phase) or, without one, the token starts'
  rotating window Π (docs/model.md §2.2);
* ``"token"``: the reference's token start from a random token x0 ∈ {±1}^(N_se+P), each bit ±1 with
  probability 1/2 (:meth:`State.from_token`, docs/model.md §2.2).

Also :func:`perturbations` (a state plus uniform noise of a given radius) and :func:`projection_grid` (a
regular grid over two features of a constant window).
"""
from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from ..model.spec import ModelSpec, require_int
from ..model.state import State, rotating_pe_window


def start_generator(seed: int, index: int) -> np.random.Generator:
    """The generator of start ``index`` of ensemble ``seed``: Philox keyed by SeedSequence((seed, index))."""
    return np.random.Generator(np.random.Philox(np.random.SeedSequence((int(seed), int(index)))))


def _counters(n, seed, first) -> range:
    n = require_int("n", n, 1)
    require_int("seed", seed, 0)
    return range(require_int("first", first, 0), first + n)


def _positional_window(model: ModelSpec) -> np.ndarray:
    return model.checkpoint.pe if model.checkpoint is not None else rotating_pe_window(model)


def uniform_windows(model: ModelSpec, n: int, *, seed: int = 0, first: int = 0, low: float = -1.0,
                    high: float = 1.0) -> list[State]:
    """``n`` full attention windows (L×M) uniform in [low, high] (module docstring, sampler ``"uniform"``)."""
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ConfigError(f"box = [{low}, {high}] is not allowed: must be finite numbers with low < high")
    pe = _positional_window(model)
    shape = (model.context, model.n_features)
    return [State(att=start_generator(seed, i).uniform(low, high, shape), pe=pe) for i in _counters(n, seed, first)]


def random_tokens(model: ModelSpec, n: int, *, seed: int = 0, first: int = 0) -> list[State]:
    """``n`` token starts from random ±1 tokens (module docstring, sampler ``"token"``)."""
    if model.weights is None:
        raise ConfigError("sampler = 'token' is not allowed: this model has no weight matrices (built from tables)")
    width = np.asarray(model.weights["v"]).shape[1]
    return [State.from_token(model, 2.0 * start_generator(seed, i).integers(0, 2, width) - 1.0)
            for i in _counters(n, seed, first)]


def perturbations(state: State, n: int, *, radius: float, seed: int = 0, first: int = 0) -> list[State]:
    """``n`` copies of ``state`` with every window entry moved by an independent uniform draw in ±radius."""
    if not (np.isfinite(radius) and radius > 0):
        raise ConfigError(f"radius = {radius!r} is not allowed: must be a finite number > 0")
    return [State(att=state.att + start_generator(seed, i).uniform(-radius, radius, state.att.shape), pe=state.pe)
            for i in _counters(n, seed, first)]


def projection_grid(model: ModelSpec, features: tuple[int, int], bounds: tuple[tuple[float, float], ...],
                    shape: tuple[int, int], base: float = 0.0) -> list[State]:
    """Constant full windows on a grid over two features: feature ``features[k]`` of every row takes
    ``shape[k]`` values evenly spaced over ``bounds[k]`` (ends included), the other features ``base``; row-major
    order (the second feature fastest). The positional window is as for ``"uniform"``."""
    a, b = features
    if not (0 <= a < model.n_features and 0 <= b < model.n_features and a != b):
        raise ConfigError(f"features = {features!r} is not allowed: must be two distinct indices in "
                          f"0..{model.n_features - 1}")
    if len(bounds) != 2 or len(shape) != 2:
        raise ConfigError(f"bounds = {bounds!r}, shape = {shape!r} are not allowed: two (low, high) ranges and two "
                          "counts, one per feature")
    axes = [np.linspace(lo, hi, require_int("shape", count, 1)) for (lo, hi), count in zip(bounds, shape)]
    pe = _positional_window(model)
    states = []
    for u in axes[0]:
        for v in axes[1]:
            att = np.full((model.context, model.n_features), float(base))
            att[:, a], att[:, b] = u, v
            states.append(State(att=att, pe=pe))
    return states


#: Random samplers by name: ``(model, n, seed=, first=) -> list of States``.
SAMPLERS = {"uniform": uniform_windows, "token": random_tokens}


def sample(model: ModelSpec, n: int, sampler: str = "uniform", *, seed: int = 0, first: int = 0) -> list[State]:
    """``n`` starts from the named sampler (:data:`SAMPLERS`)."""
    if sampler not in SAMPLERS:
        raise ConfigError(f"sampler = {sampler!r} is not allowed: choose from {list(SAMPLERS)}")
    return SAMPLERS[sampler](model, n, seed=seed, first=first)
