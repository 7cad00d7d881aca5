"""Basin maps of the attention model on a plane of start windows (docs/basins.md §7).

A :class:`Plane` is the set of attention windows ``origin + u·d₀ + v·d₁`` on a regular grid of (u, v) (ends
included): through a given window (default: the model's checkpoint, docs/model.md §2.2) along two features of
the window (``d_k`` = 1 in feature ``f_k`` of every row, 0 elsewhere) or towards two given windows
(``d_k = W_k − origin``, so (1, 0) is W₀ and (0, 1) is W₁); the positional window is the origin's.

The attractors are known beforehand (a census at the point, :func:`meanfield.find_attractors`), so a
start is not grouped with the others but *assigned* (:func:`assign_tails`): every start runs on its own kernel
lane for ``steps`` iterations, its attention row recorded over t = transient … steps − 1, and

1. a start whose last p recorded rows lie within ``cycle_rtol · s_k`` (Hausdorff distance, max norm over
   features) of the point set of a known cycle k of period p and extent s_k is on that cycle — the census's
   identity rule for cycles (docs/attractors.md §2) at the known period, without searching for a period;
2. every other start is fingerprinted and assigned by the census's rules
   (:func:`meanfield.analysis.fingerprint`, :func:`meanfield.analysis.grouping.assign_to_attractors`): an
   aperiodic attractor by its measure, a cycle by its detected period;
3. a start that is none of them is unsettled, id −1 (not settled in ``transient`` steps, or on an attractor
   the census did not find).

Step 1 is what makes a 512² map cheap (the period search of step 2 costs ~0.7 ms per start, the Hausdorff test
a few µs); it accepts a start that is within the tolerance of a known cycle but whose residual has not reached
the period criterion's floor, which step 2 would leave unsettled. Every start's id depends only on its own
lane, so a map is the same whatever the chunking.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.fingerprint import DEFAULT_QUANTILES, fingerprint
from ..analysis.grouping import CYCLE_RTOL, MEASURE_RTOL, _hausdorff, assign_to_attractors
from ..errors import ConfigError
from ..model.spec import ModelSpec, require_finite, require_int
from ..model.state import StartWindows, State
from ..options import Compute, check_compute
from ..short_repr import short_repr
from ..simulation import simulate_batch
from .options import MAX_PERIOD, Tolerances, check_tolerances

#: Largest side of a basin map (a 8192² map holds 6.7e7 starts).
MAX_RESOLUTION = 8192
#: Pixel rows per kernel call of :func:`basin_map` when ``compute.chunk`` does not say (memory only).
BASIN_CHUNK = 16


@short_repr
@dataclass(frozen=True)
class Plane:
    """A plane of start windows (module docstring): pixel (i, j) is ``origin.att + u[i]·directions[0] +
    v[j]·directions[1]`` with the origin's positional window; ``directions`` (2, L, M)."""

    origin: State
    directions: np.ndarray
    u: np.ndarray
    v: np.ndarray

    @property
    def shape(self) -> tuple:
        return self.u.size, self.v.size

    def starts(self, rows: range) -> StartWindows:
        """The start windows of the pixel rows ``rows`` (every column of each), row-major (v fastest)."""
        d0, d1 = self.directions
        u, v = self.u[np.asarray(rows, dtype=np.int64)], self.v
        att = self.origin.att + u[:, None, None, None] * d0 + v[None, :, None, None] * d1
        return StartWindows(att=att.reshape(-1, *d0.shape), pe=self.origin.pe)


def _window(model: ModelSpec, key: str, value) -> np.ndarray:
    """A full attention window (L×M finite numbers) or a ConfigError naming ``key``."""
    try:
        window = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        window = None
    shape = (model.context, model.n_features)
    if window is None or window.shape != shape or not np.isfinite(window).all():
        raise ConfigError(f"{key} = {value!r} is not allowed: must be a window of {shape[0]} rows of "
                          f"{shape[1]} finite numbers")
    return window


def _span(key: str, value) -> tuple:
    try:
        lo, hi = (require_finite(key, x) for x in value)
    except (TypeError, ValueError):
        lo = hi = None
    if lo is None or not lo < hi:
        raise ConfigError(f"{key} = {value!r} is not allowed: must be [low, high], two finite numbers with low < high")
    return lo, hi


def plane(model: ModelSpec, *, origin=None, features=(0, 1), windows=None, u=(-1.0, 1.0), v=(-1.0, 1.0),
          resolution=(512, 512)) -> Plane:
    """The plane of start windows through ``origin`` (a window L×M, or None: the model's checkpoint) along two
    ``features`` of the window, or towards two ``windows`` (module docstring); ``u`` and ``v`` the ranges of
    the two coordinates, ``resolution`` the pixels along each (an int: both). Every argument is checked
    (ConfigError naming it) before anything runs."""
    if origin is None:
        if model.checkpoint is None or model.checkpoint.att.shape[0] != model.context:
            raise ConfigError("origin = 'checkpoint' is not allowed: this model has no full checkpoint window; "
                              "give the origin window")
        start = model.checkpoint
    else:
        start = State(att=_window(model, "origin", origin), pe=model.checkpoint.pe if model.checkpoint else
                      np.zeros((model.context, model.pe_bits)))
    if windows is not None:
        if isinstance(windows, (str, bytes)) or len(windows) != 2:
            raise ConfigError(f"windows = {windows!r} is not allowed: must be two windows")
        directions = np.stack([_window(model, f"windows[{k}]", w) - start.att for k, w in enumerate(windows)])
    else:
        try:
            a, b = (require_int("features", f, 0, model.n_features - 1) for f in features)
        except (TypeError, ValueError):
            a = b = None
        if a is None or a == b:
            raise ConfigError(f"features = {features!r} is not allowed: must be two distinct indices in "
                              f"0..{model.n_features - 1}")
        directions = np.zeros((2, model.context, model.n_features))
        directions[0, :, a], directions[1, :, b] = 1.0, 1.0
    sizes = (resolution, resolution) if isinstance(resolution, (int, np.integer)) else tuple(resolution)
    if len(sizes) != 2:
        raise ConfigError(f"resolution = {resolution!r} is not allowed: must be an integer or two integers")
    counts = [require_int("resolution", n, 2, MAX_RESOLUTION) for n in sizes]
    axes = [np.linspace(*_span(key, span), count) for key, span, count in zip("uv", (u, v), counts)]
    return Plane(origin=start, directions=directions, u=axes[0], v=axes[1])


@short_repr
@dataclass(frozen=True)
class KnownAttractors:
    """The attractors starts are assigned to, as a census stores them: ``period`` (k,) (0: aperiodic),
    ``scale`` (k,), ``quantiles`` (k, Q, F) and ``points``, k cycle point sets (p, F) (ignored when aperiodic)."""

    period: np.ndarray
    scale: np.ndarray
    quantiles: np.ndarray
    points: list

    @classmethod
    def from_census(cls, census) -> KnownAttractors:
        """The attractors of a :class:`~meanfield.census.find.Census`, ids = their indices there."""
        a = census.attractors
        return cls(period=np.array([x.period for x in a], dtype=np.int64), scale=np.array([x.scale for x in a]),
                   quantiles=np.array([x.summary for x in a]) if a else np.zeros((0, DEFAULT_QUANTILES, 1)),
                   points=[x.points for x in a])


def assign_tails(tails: np.ndarray, known: KnownAttractors, *, max_period: int = MAX_PERIOD,
                 rtol: tuple = (CYCLE_RTOL, MEASURE_RTOL)) -> np.ndarray:
    """The id of each recorded tail (starts, time, M) among the ``known`` attractors, −1 unsettled (module
    docstring, steps 1–3)."""
    tails = np.ascontiguousarray(tails, dtype=np.float64)
    ids = np.full(tails.shape[0], -1, dtype=np.int64)
    for k in range(len(known.period)):
        p = int(known.period[k])
        if p <= 0 or p > tails.shape[1]:
            continue
        free = np.flatnonzero(ids < 0)
        distance = _hausdorff(np.ascontiguousarray(known.points[k][:p]), np.ascontiguousarray(tails[free, -p:]))
        ids[free[distance <= rtol[0] * known.scale[k]]] = k
    rest = np.flatnonzero(ids < 0)
    if rest.size and len(known.period):
        prints = fingerprint(tails[rest], max_period=max_period, n_quantiles=DEFAULT_QUANTILES)
        ids[rest] = assign_to_attractors(prints, known.period, known.scale, known.quantiles, known.points,
                                         cycle_rtol=rtol[0], measure_rtol=rtol[1])
    return ids


def plane_ids(model: ModelSpec, plane_: Plane, rows: range, known: KnownAttractors, steps: int, transient: int, *,
              values: dict | None = None, max_period: int = MAX_PERIOD, rtol: tuple = (CYCLE_RTOL, MEASURE_RTOL),
              backend: str = "cpu") -> np.ndarray:
    """The ids (len(rows), v) of the pixel rows ``rows`` of ``plane_`` at the parameter ``values`` (scalars by
    name; default the model's own): one kernel lane per start (module docstring)."""
    starts = plane_.starts(rows)
    values = {"beta_o": model.beta_o} if not values else values
    batch = simulate_batch(model, steps, transient, parameters={k: np.full(len(starts), float(x))
                                                                 for k, x in values.items()},
                           start=starts, record=("att",), compute=Compute(backend=backend, progress=False))
    ids = assign_tails(batch.records["att"], known, max_period=max_period, rtol=rtol)
    return ids.reshape(len(rows), plane_.v.size)


def basin_map(model: ModelSpec, attractors, plane: Plane, steps: int, transient: int, *,
              tolerances: Tolerances = Tolerances(), compute: Compute = Compute()) -> np.ndarray:
    """The basin map (u, v) of ``model`` on ``plane`` in one process: the id of each pixel's attractor among
    ``attractors`` (a :class:`~meanfield.census.find.Census` or :class:`~meanfield.census.basins.KnownAttractors`), −1
    unsettled, with the census's ``tolerances``. ``compute.chunk`` pixel rows per kernel call (default
    :data:`BASIN_CHUNK`; memory, the map does not depend on it). A sweep with a ``[basins]`` table computes the same map
    on a cluster (docs/basins.md §7)."""
    tolerances, compute = check_tolerances(tolerances), check_compute(compute, "basin_map", "progress")
    tolerances.check_run(steps, transient)
    if not isinstance(plane, Plane):
        raise ConfigError(f"plane = {plane!r} is not allowed: must be a meanfield.census.plane(...)")
    if not isinstance(attractors, KnownAttractors) and not hasattr(attractors, "attractors"):
        raise ConfigError(f"attractors = {attractors!r} is not allowed: must be a census (find_attractors) or "
                          "KnownAttractors")
    known = attractors if isinstance(attractors, KnownAttractors) else KnownAttractors.from_census(attractors)
    chunk, n = compute.chunk or BASIN_CHUNK, plane.u.size
    return np.concatenate([plane_ids(model, plane, range(lo, min(n, lo + chunk)), known, steps, transient,
                                     max_period=tolerances.max_period, rtol=tolerances.rtol, backend=compute.backend)
                           for lo in range(0, n, chunk)])


__all__ = ["BASIN_CHUNK", "KnownAttractors", "Plane", "assign_tails", "basin_map", "plane", "plane_ids"]
