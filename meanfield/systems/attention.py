"""The attention model as a system (docs/architecture.md §2): a :class:`ModelSpec` seen by the census and the
orbit, bifurcation and curve tools through the members of the system protocol
(:class:`meanfield.analysis.system.System`), as a user's :class:`meanfield.Map` is, so each of those tools is one
code path for both; :func:`as_system` is the one adapter they call.

Runs go through the batched kernel (:func:`meanfield.simulate_batch`), one lane per start, skipping the steps of
exact cycles where the results stay the same bit for bit (:mod:`meanfield.systems.exact_cycles`): the identity
series is the attention window's newest row, the classifier's series ``mo_se`` (docs/model.md §3), the final
states are :class:`State`\\ s.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..analysis.maps import SystemRun
from ..analysis.orbits import PeriodicOrbit
from ..analysis.system import System, not_a_system
from ..attention_orbits import confirm_cycle, curve_family, orbit_problem
from ..errors import ConfigError
from ..model import Control
from ..model.spec import SCALAR_PARAMETERS, ModelSpec
from ..model.state import State
from ..options import Compute
from ..simulation import simulate_batch
from .exact_cycles import run_skipping_cycles, skips_cycles
from .starts import sample


class AttentionSystem:
    """The attention model ``model`` as a system (module docstring)."""

    def __init__(self, model: ModelSpec):
        self.model = model

    @property
    def forcing_period(self) -> int:
        return self.model.forcing_period()

    def index(self, name: str) -> int:
        """The position of a scalar parameter (ConfigError naming the allowed ones)."""
        if name not in SCALAR_PARAMETERS:
            raise ConfigError(f"parameter = {name!r} is not allowed: must be one of {', '.join(SCALAR_PARAMETERS)}")
        return SCALAR_PARAMETERS.index(name)

    def replace(self, **values: float) -> AttentionSystem:
        return AttentionSystem(self.model.replace(**values))

    @property
    def size(self) -> int:
        """The continuous state's dimension: the attention window's L·M entries."""
        return self.model.context * self.model.n_features

    def value(self, name: str):
        """The model's value of the scalar parameter ``name`` (ConfigError naming the allowed ones)."""
        self.index(name)
        return getattr(self.model, name)

    def simulate(self, steps: int, transient: int = 0, **options):
        """One run, as :func:`meanfield.simulate` of the model."""
        return simulate_batch(self.model, steps, transient, **options).point(0)

    def orbit_problem(self, state: State | None, transient: int, period: int | None, parameter: str | None = None,
                      value: float | None = None):
        """Newton's problem for the cycle near ``state`` (:func:`meanfield.attention_orbits.orbit_problem`)."""
        return orbit_problem(self.model, state, transient, period, parameter, value)

    def curve_family(self, point, names: tuple[str, str], state: State | None = None):
        """A bifurcation curve's family at the PE phase the point fits
        (:func:`meanfield.attention_orbits.curve_family`)."""
        return curve_family(self.model, point, names, state)

    def sample(self, n: int, seed: int = 0, sampler: str = "uniform", first: int = 0) -> list:
        """Starts from the named sampler (:data:`meanfield.systems.starts.SAMPLERS`, docs/attractors.md §1)."""
        return sample(self.model, n, sampler, seed=seed, first=first)

    def run(self, starts: list, steps: int, transient: int, *, values: Mapping[str, np.ndarray] | None = None,
            lyapunov: bool | int = False, series: bool = True, compute: Compute | None = None) -> SystemRun:
        """Every start on its own kernel lane at ``values`` (arrays, one value per start; default the model's
        own), the attention row recorded over t = transient … steps − 1, and ``mo_se`` when ``series``; a
        progress bar as :func:`meanfield.simulate_batch` shows it (``compute``; None: the CPU, no bar)."""
        compute = Compute(progress=False) if compute is None else compute
        backend, progress = compute.backend, compute.progress
        values = dict(values) if values else {"beta_o": np.full(len(starts), self.model.beta_o)}
        record = ("att", "mo_se") if series else ("att",)
        if skips_cycles(self.model, starts, transient, values, lyapunov, backend):
            records, final_att, final_pe = run_skipping_cycles(self.model, starts, steps, transient, values, record,
                                                               progress)
            return SystemRun(records["att"], records.get("mo_se"), None, None,
                             _FinalStates(lambda i: State(att=final_att[i], pe=final_pe[i]), len(starts)))
        batch = simulate_batch(self.model, steps, transient, parameters=values, start=starts, lyapunov=lyapunov,
                               record=record, compute=compute)
        return SystemRun(batch.records["att"], batch.records.get("mo_se"), batch.lyapunov, batch.lyapunov_stderr,
                         _FinalStates(batch.final_state, len(starts)))

    def confirm_cycle(self, state: State, period: int) -> PeriodicOrbit | None:
        """The stable period-``period`` cycle that ``state`` is closing in on
        (:func:`meanfield.attention_orbits.confirm_cycle`, docs/bifurcations.md §7), or None; None under PID control
        (Newton runs the map without it)."""
        if self.model.control != Control():
            return None
        return confirm_cycle(self.model, state, period)

    def on_orbit(self, orbit: PeriodicOrbit, state: State) -> State:
        """The state on ``orbit`` at ``state``'s PE phase: the orbit's first window (the phase Newton started
        from)."""
        shape = (self.model.context, self.model.n_features)
        return State(att=orbit.points[0].reshape(shape), pe=state.pe)

    def perturb(self, state: State, radius: float, seed: int = 0) -> State:
        """``state`` with every entry of its attention window and of its controller's state (reference,
        integral, previous error) moved by ±``radius`` (random signs); the PE window is kept."""
        rng = np.random.Generator(np.random.Philox(np.random.SeedSequence((int(seed), 0))))
        att = state.att + radius * rng.choice([-1.0, 1.0], state.att.shape)
        control = None if state.control is None else \
            state.control + radius * rng.choice([-1.0, 1.0], state.control.shape)
        return State(att=att, pe=state.pe, control=control)


class _FinalStates(Sequence):
    """A run's final states, each a :class:`State` built when it is asked for (a census asks for few of them)."""

    def __init__(self, state_of, count: int):
        self._state_of, self._count = state_of, count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> State:
        if not -self._count <= i < self._count:
            raise IndexError(i)
        return self._state_of(i % self._count)


def as_system(system) -> System:
    """A :class:`ModelSpec` as an :class:`AttentionSystem`; a system (anything with every member of the
    protocol :class:`~meanfield.analysis.system.System`: a :class:`meanfield.Map`, an AttentionSystem) as it is;
    anything else a ConfigError (naming the members a would-be system lacks)."""
    if isinstance(system, ModelSpec):
        return AttentionSystem(system)
    if isinstance(system, System):
        return system
    raise not_a_system(system)


__all__ = ["AttentionSystem", "as_system"]
