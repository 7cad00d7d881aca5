"""The system protocol (docs/architecture.md §2): every member that ``mf.simulate``, the census
(``mf.find_attractors``, ``mf.continue_attractors``, ``minimal_critical_shock``, its families and unsettled starts) and
the orbit, bifurcation and curve tools call on a system, declared once as :class:`System`.

Two classes implement it: a user's :class:`meanfield.Map` (:mod:`meanfield.analysis.maps`) and the attention model
adapted by ``meanfield.systems.AttentionSystem`` (``meanfield.systems.as_system`` turns a ``ModelSpec`` into one).
The tools check a system with ``isinstance(x, System)`` (the protocol is runtime-checkable: every member must
exist) and then take one code path for every system; a capability a system lacks is a member that says so (a Map's
:meth:`~System.confirm_cycle` returns None), never a missing one. This module is the contract and its one refusal
(:func:`not_a_system`); the implementations live with the maps and the model.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..errors import ConfigError

if TYPE_CHECKING:  # annotations only
    import numpy as np

    from .maps import SystemRun
    from .orbits import PeriodicOrbit


@runtime_checkable
class System(Protocol):
    """What the tools call on a system (module docstring). A state is whatever the system's runs start from and
    end in (a ``meanfield.State`` of the attention model, a 1-D array of a Map)."""

    @property
    def forcing_period(self) -> int:
        """The period q of a periodic forcing that is part of the state (1: autonomous; the classifier's and
        Newton's stroboscopic period)."""

    @property
    def size(self) -> int:
        """The continuous state's dimension (the unknowns of a point of Newton's problem)."""

    def index(self, name: str) -> int:
        """The position of the named parameter (ConfigError naming the allowed ones)."""

    def value(self, name: str) -> float:
        """The named parameter's value (ConfigError naming the allowed ones)."""

    def replace(self, **values: float) -> System:
        """The same system at other parameter values (ConfigError for a value it refuses)."""

    def sample(self, n: int, seed: int = 0, sampler: str = "uniform", first: int = 0) -> list:
        """Starts ``first`` … ``first + n − 1`` of the named sampler's ensemble ``seed``, each from its own
        counter-based generator (docs/attractors.md §1)."""

    def perturb(self, state: Any, radius: float, seed: int = 0) -> Any:
        """``state`` pushed by ±``radius`` in every coordinate (random signs from ``seed``)."""

    def run(self, starts: list, steps: int, transient: int, *, values: Mapping[str, np.ndarray] | None = None,
            lyapunov: bool | int = False, series: bool = True, compute: Any = None) -> SystemRun:
        """Every start run ``steps`` steps, recorded from ``transient`` on, at ``values`` (named parameters, one
        value per start; None: the system's own), with ``lyapunov`` exponents (True: all, k: the leading k) and
        the classifier's series when ``series``; ``compute`` a ``meanfield.Compute`` (None: the CPU, no bar)."""

    def simulate(self, steps: int, transient: int = 0, **options) -> Any:
        """One run, what ``mf.simulate`` of the system returns; an option the system cannot honour is refused
        (ConfigError), never ignored."""

    def orbit_problem(self, state: Any, transient: int, period: int | None, parameter: str | None = None,
                      value: float | None = None) -> tuple:
        """Newton's problem ``(family, points, period)`` for the cycle near ``state`` (None: the system's default
        start) after ``transient`` steps, at ``parameter = value`` (None: as it is); ``period`` None: detected."""

    def curve_family(self, point: Any, names: tuple[str, str], state: Any = None) -> Any:
        """``family(α)`` over the two parameters ``names`` for a bifurcation curve through ``point``."""

    def confirm_cycle(self, state: Any, period: int) -> PeriodicOrbit | None:
        """The stable period-``period`` cycle that ``state`` is closing in on, confirmed by Newton
        (docs/attractors.md §8), or None: none, or the system cannot confirm cycles (then it always says None)."""

    def on_orbit(self, orbit: PeriodicOrbit, state: Any) -> Any:
        """The state on ``orbit`` (one :meth:`confirm_cycle` returned for ``state``) that a confirming run starts
        from."""


#: The protocol's members, in the order declared.
MEMBERS = tuple(name for name in vars(System) if not name.startswith("_"))


def missing_members(candidate) -> list[str]:
    """The members of :class:`System` that ``candidate`` lacks (empty: it is a system)."""
    return [name for name in MEMBERS if not hasattr(candidate, name)]


def not_a_system(candidate) -> ConfigError:
    """The one refusal of a ``model`` that is neither a ``ModelSpec`` nor a :class:`System`, naming the members a
    would-be system (one with some of them) lacks."""
    lacking = missing_members(candidate)
    hint = "" if len(lacking) == len(MEMBERS) else f" (as a system it lacks {', '.join(lacking)})"
    return ConfigError(f"model = {candidate!r} is not allowed: must be a ModelSpec or a meanfield.Map{hint}")


__all__ = ["MEMBERS", "System", "missing_members", "not_a_system"]
