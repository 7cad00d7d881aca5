"""A user's own map as a system: the generic tools' view of any map x_{t+1} = F(x_t; p) (docs/architecture.md).

A system is what the census, the classifier's run, the periodic-orbit and bifurcation tools take: the members of
the protocol :class:`meanfield.analysis.system.System` (a state size, named parameters, the forcing period, a default
start sampler, runs, Newton's problems). The attention model is one system
(``meanfield.systems.AttentionSystem``); :class:`Map` is another, for any map given
as two numba functions with the convention of :func:`~meanfield.analysis.lyapunov_spectrum`:
``step(x, p, out)`` writes F(x; p) into ``out`` and ``jacobian(x, p, out)`` writes ∂F/∂x, with ``p`` the
parameter vector in the order of the ``parameters`` mapping.

A system answers :meth:`Map.run` with a :class:`SystemRun`: per start, the recorded states (what two runs are
compared by, docs/attractors.md §2), the series the classifier reads (docs/classification.md), exponents with
block standard errors, and the final states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numba as nb
import numpy as np

from meanfield.analysis._input import as_series
from meanfield.analysis.lyapunov import lyapunov_spectrum
from meanfield.compiled_cache import cached_jit
from meanfield.errors import AnalysisError, ConfigError
from meanfield.short_repr import short_repr

#: Blocks of the exponents' standard errors (as the attention model's runs).
BLOCKS = 20
#: The longest period :meth:`Map.orbit_problem` detects (over twice as many steps).
MAX_DETECTED = 2000


@short_repr
@dataclass(frozen=True)
class SystemRun:
    """What a system's ``run`` returns for n starts: ``states`` (n, T, F) the recorded identity series,
    ``series`` (n, T, F') the classifier's series, ``lyapunov`` and ``lyapunov_stderr`` (n, k) or None, and
    ``finals`` (n, …) the final states (:meth:`~meanfield.analysis.maps.SystemRun.final_state`)."""

    states: np.ndarray
    series: np.ndarray
    lyapunov: np.ndarray | None
    lyapunov_stderr: np.ndarray | None
    finals: Sequence

    def final_state(self, i: int):
        return self.finals[i]


@short_repr
@dataclass(frozen=True)
class MapTrajectory:
    """One run of a :class:`Map`: ``states`` (T, d) at iterations transient … steps − 1 (also the classifier's
    ``series``), ``lyapunov`` / ``lyapunov_stderr`` (k,) or None, ``final_state`` (d,) and the map's
    ``forcing_period``, so :func:`meanfield.analysis.classify` takes it as it is."""

    states: np.ndarray
    lyapunov: np.ndarray | None
    lyapunov_stderr: np.ndarray | None
    final_state: np.ndarray
    forcing_period: int

    @property
    def series(self) -> np.ndarray:
        return self.states


def _exponents_asked(lyapunov):
    """False, True (all) or k, from ``lyapunov`` as the entry points take it (a ``meanfield.Lyapunov`` record of k
    alone, or its shorthands): a Map's exponents run QR every step over :data:`BLOCKS` blocks."""
    if hasattr(lyapunov, "qr_every"):
        if lyapunov.qr_every is not None or lyapunov.n_blocks is not None:
            raise ConfigError(f"lyapunov = {lyapunov!r} is not allowed for a Map: only k (QR every step, "
                              f"{BLOCKS} blocks)")
        return True if lyapunov.k is None else lyapunov.k
    return False if lyapunov is None else lyapunov


@cached_jit()
def _orbit(step, x0, params, steps, transient, out):
    """Iterate ``steps`` times from ``x0``, writing states transient … steps − 1 into ``out``; returns the
    final state. NaN/inf propagate (the caller sees them)."""
    x = x0.copy()
    nxt = np.empty_like(x)
    for t in range(steps):
        if t >= transient:
            out[t - transient] = x
        step(x, params, nxt)
        x, nxt = nxt, x
    return x


@short_repr
@dataclass(frozen=True)
class Map:
    """A map x_{t+1} = F(x_t; p) given by compiled functions (module docstring).

    Parameters
    ----------
    step, jacobian : numba ``@njit`` functions
        ``step(x, p, out)``, ``jacobian(x, p, out)`` with float64 arrays.
    state : array_like, 1-D
        A default start (the sampler's centre, and where a run starts when none is given).
    parameters : ~collections.abc.Mapping of {name: float}
        The named parameters, in the order of the vector ``p``.
    forcing_period : int
        The period q of a periodic forcing that is part of the state (1: autonomous); a cycle whose period
        divides q is a fixed point of the stroboscopic map (docs/classification.md §2).
    box : (array_like, array_like), optional
        The default sampler's box (lower, upper corners); default ``state`` ± 1 in every coordinate.
    """

    step: object
    jacobian: object
    state: np.ndarray
    parameters: Mapping[str, float]
    forcing_period: int = 1
    box: tuple = field(default=None)

    def __post_init__(self) -> None:
        for name in ("step", "jacobian"):
            if not isinstance(getattr(self, name), nb.core.dispatcher.Dispatcher):
                raise ConfigError(f"{name} = {getattr(self, name)!r} is not allowed: must be a numba @njit "
                                  f"function {name}(x, p, out)")
        state = as_series(self.state, name="state")
        object.__setattr__(self, "state", state)
        values = {str(k): float(v) for k, v in dict(self.parameters).items()}
        bad = [k for k, v in values.items() if not np.isfinite(v)]
        if bad:
            raise ConfigError(f"parameters: {bad[0]} = {values[bad[0]]!r} is not allowed: must be finite")
        object.__setattr__(self, "parameters", MappingProxyType(values))
        if isinstance(self.forcing_period, bool) or not isinstance(self.forcing_period, int | np.integer) \
                or self.forcing_period < 1:
            raise ConfigError(f"forcing_period = {self.forcing_period!r} is not allowed: must be an integer >= 1")
        low, high = (state - 1.0, state + 1.0) if self.box is None else \
            (np.broadcast_to(np.asarray(c, dtype=np.float64), state.shape).copy() for c in self.box)
        if not np.all(np.isfinite(low) & np.isfinite(high) & (low <= high)):
            raise ConfigError(f"box = {self.box!r} is not allowed: must be finite corners with lower <= upper")
        object.__setattr__(self, "box", (low, high))

    @property
    def size(self) -> int:
        """The state's dimension."""
        return self.state.size

    def vector(self, values: Mapping[str, float] | None = None) -> np.ndarray:
        """The parameter vector p, with ``values`` replacing named entries."""
        merged = dict(self.parameters)
        for name, value in (values or {}).items():
            self.index(name)
            merged[name] = float(value)
        return np.array(list(merged.values()), dtype=np.float64)

    def index(self, name: str) -> int:
        """The position of parameter ``name`` in p (ConfigError naming the allowed ones)."""
        if name not in self.parameters:
            raise ConfigError(f"parameter = {name!r} is not allowed: must be one of {', '.join(self.parameters)}")
        return list(self.parameters).index(name)

    def replace(self, **values: float) -> Map:
        """The same map at other parameter values."""
        return Map(self.step, self.jacobian, self.state, dict(zip(self.parameters, self.vector(values))),
                   self.forcing_period, self.box)

    def sample(self, n: int, seed: int = 0, sampler: str = "uniform", first: int = 0) -> list[np.ndarray]:
        """n starts uniform in :attr:`box` (the one ``sampler``), start i from its own generator (Philox keyed by
        (seed, first + i)), as the attention model's sampler (docs/attractors.md §1)."""
        if sampler != "uniform":
            raise ConfigError(f"sampler = {sampler!r} is not allowed: a Map samples 'uniform' starts in its box")
        low, high = self.box
        out = []
        for i in range(first, first + int(n)):
            rng = np.random.Generator(np.random.Philox(np.random.SeedSequence((int(seed), i))))
            out.append(low + (high - low) * rng.random(self.size))
        return out

    def run(self, starts, steps: int, transient: int, *, values: Mapping[str, np.ndarray] | None = None,
            lyapunov: bool | int = False, series: bool = True, compute=None) -> SystemRun:
        """Every start iterated ``steps`` times, states recorded from ``transient`` on (they are the identity
        and the classifier's series; ``series`` is accepted for the protocol); ``values`` gives named parameters
        per start (arrays of the starts' length); ``lyapunov``: the leading exponents (True: all) with
        :data:`~meanfield.analysis.maps.BLOCKS`-block standard errors over the same steps. A run that diverges
        records NaN/inf and exponents of +inf (the classifier says ``divergent``). ``compute`` (a
        ``meanfield.Compute``) must say the CPU; ``series`` and ``compute.progress`` are the protocol's (a Map records
        its states, which are its series, and shows no bar)."""
        if compute is not None and compute.backend != "cpu":
            raise ConfigError(f"backend = {compute.backend!r} is not allowed for a Map: 'cpu'")
        starts = [as_series(s, name="start") for s in starts]
        n, kept = len(starts), int(steps) - int(transient)
        lyapunov = _exponents_asked(lyapunov)
        k = 0 if lyapunov is False else self.size if lyapunov is True else int(lyapunov)
        recorded = np.empty((n, kept, self.size))
        finals, lam, err = [], np.full((n, k), np.inf), np.full((n, k), np.nan)
        for i, x0 in enumerate(starts):
            p = self.vector({name: column[i] for name, column in (values or {}).items()})
            finals.append(_orbit(self.step, x0, p, int(steps), int(transient), recorded[i]))
            if k and np.all(np.isfinite(recorded[i])):
                try:
                    result = lyapunov_spectrum(self.step, self.jacobian, x0, kept, int(transient), k,
                                               min(BLOCKS, kept), p)
                    lam[i], err[i] = result.exponents, result.stderr
                except AnalysisError:
                    pass                                 # a diverging tangent: +inf, the run is divergent
        return SystemRun(recorded, recorded, lam if k else None, err if k else None, finals)

    def simulate(self, steps: int, transient: int = 0, *, start=None, lyapunov=False, record=None,
                 compute=None) -> MapTrajectory:
        """One run from ``start`` (default :attr:`state`), as :meth:`run` (``mf.simulate`` of a Map). A Map records
        its whole state on the CPU in one compiled call: ``record`` must be None, ``compute`` the default
        (``meanfield.Compute()``, or no progress bar), ``lyapunov`` False, True, k or a ``meanfield.Lyapunov`` of
        k alone."""
        if record is not None:
            raise ConfigError(f"record = {record!r} is not allowed for a Map: it records its whole state")
        if compute is not None and (compute.backend != "cpu" or compute.progress or compute.chunk is not None):
            raise ConfigError(f"compute = {compute!r} is not allowed for a Map: it runs on the CPU in one compiled "
                              "call (backend 'cpu', no progress bar, no chunks)")
        if int(steps) <= int(transient) or int(transient) < 0:
            raise ConfigError(f"transient = {transient!r} is not allowed with steps = {steps!r}: "
                              "0 <= transient < steps")
        run = self.run([self.state if start is None else start], int(steps), int(transient), lyapunov=lyapunov)
        return MapTrajectory(run.states[0], None if run.lyapunov is None else run.lyapunov[0],
                             None if run.lyapunov_stderr is None else run.lyapunov_stderr[0], run.finals[0],
                             self.forcing_period)

    def value(self, name: str) -> float:
        """The value of parameter ``name`` (ConfigError naming the allowed ones)."""
        self.index(name)
        return self.parameters[name]

    def orbit_problem(self, state, transient: int, period: int | None, parameter: str | None = None,
                      value: float | None = None):
        """Newton's problem for the cycle through (or near) ``state`` (default :attr:`state`) at ``parameter =
        value`` (default the map as it is), after ``transient`` steps: ``(family, points, period)`` for
        :mod:`meanfield.analysis.orbits` — the family over ``parameter``, the ``period`` points visited from the
        settled state, the period given or found by the classifier's cycle criterion (docs/classification.md §2)."""
        from .orbits import check_period, iterate_points, numba_family

        at = self if parameter is None else self.replace(**{parameter: value})
        start = at.state if state is None else as_series(state, name="state")
        if transient:
            start = at.run([start], int(transient) + 1, int(transient)).states[0, 0]
        if period is None:
            from .evidence import settled_period
            period = settled_period(at.run([start], 2 * MAX_DETECTED, 0).states[0], MAX_DETECTED)
        else:
            period = check_period(period)
        params = at.vector()
        family = numba_family(self.step, self.jacobian, params, None if parameter is None else self.index(parameter))
        return family, iterate_points(self.step, start, period, params), period

    def curve_family(self, point, names: tuple[str, str], state=None):
        """``family(α)`` of the map with both parameters ``names`` set to α (a bifurcation curve's problem,
        docs/bifurcations.md §10); ``point`` and ``state`` are the protocol's (a Map has no forcing phase)."""
        from .orbits import numba_family

        indices, base = [self.index(name) for name in names], self.vector()

        def family(values):
            at = base.copy()
            at[indices] = values
            return numba_family(self.step, self.jacobian, at)()

        return family

    def confirm_cycle(self, state, period: int) -> None:
        """None, always: a Map confirms no cycle by Newton (the protocol's "cannot"; its census decides unsettled
        starts by running them on, docs/attractors.md §8)."""
        return None

    def on_orbit(self, orbit, state) -> np.ndarray:
        """The state on ``orbit`` that a confirming run starts from: its first point (a Map has no forcing phase;
        ``state`` is the protocol's)."""
        return np.array(orbit.points[0], dtype=np.float64)

    def perturb(self, state, radius: float, seed: int = 0) -> np.ndarray:
        """``state`` moved by ±``radius`` in every coordinate (random signs: a push of one size in every
        direction's share, never a near-zero one by chance)."""
        rng = np.random.Generator(np.random.Philox(np.random.SeedSequence((int(seed), 0))))
        return np.asarray(state, dtype=np.float64) + radius * rng.choice([-1.0, 1.0], self.size)


__all__ = ["BLOCKS", "Map", "MapTrajectory", "SystemRun"]
