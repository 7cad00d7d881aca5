"""The census's option records (docs/attractors.md §1–§2): which starts it draws (:class:`Starts`) and the
tolerances with which it groups, identifies and matches attractors (:class:`Tolerances`). Each checks its fields
when it is made (a ConfigError naming the field, the value and what is allowed).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..analysis.grouping import CYCLE_RTOL, MATCH_RTOL, MEASURE_RTOL
from ..errors import ConfigError
from ..model.spec import require_int
from ..short_repr import short_repr

#: The longest cycle a census tells from an aperiodic set by default (:func:`meanfield.analysis.fingerprint`).
MAX_PERIOD = 256


@short_repr
@dataclass(frozen=True)
class Starts:
    """Starts drawn at random by one of the system's samplers.

    ``n`` starts from ``sampler`` ("uniform": windows uniform in [−1, 1] with the checkpoint's positional phase,
    "token": random tokens; a Map: uniform in its box), start i from its own generator keyed by (``seed``, i)
    (:mod:`meanfield.systems.starts`). ``starts=64`` is ``Starts(64)``."""

    n: int
    sampler: str = "uniform"
    seed: int = 0

    def __post_init__(self):
        object.__setattr__(self, "n", require_int("starts", self.n, 1))
        object.__setattr__(self, "seed", require_int("seed", self.seed, 0))
        if not isinstance(self.sampler, str):
            raise ConfigError(f"sampler = {self.sampler!r} is not allowed: a sampler's name")

    @classmethod
    def of(cls, value) -> Starts | list:
        """What ``starts = value`` asks for: a record (an integer n is ``Starts(n)``), or the starts themselves
        (a non-empty list of States, or of a Map's arrays)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, int | np.integer) and not isinstance(value, bool):
            return cls(value)
        states = list(value) if hasattr(value, "__iter__") and not isinstance(value, str | bytes) else []
        if not states:
            raise ConfigError(f"starts = {value!r} is not allowed: a number of starts, a meanfield.census.Starts or a "
                              "non-empty list of states")
        return states

    def draw(self, system) -> list:
        """The starts, from ``system``'s sampler."""
        return system.sample(self.n, self.seed, self.sampler)


@short_repr
@dataclass(frozen=True)
class Tolerances:
    """How a census tells attractors apart (docs/attractors.md §2–§3).

    Cycles up to ``max_period`` are told from aperiodic sets; two cycles are one when their point sets agree to
    ``cycle_rtol``, two aperiodic sets when their measures agree to ``measure_rtol`` (both relative to the
    attractor's scale, :func:`meanfield.analysis.group_attractors`); along a parameter, an attractor continues a
    neighbour's when they are within ``match_rtol`` of the extent of all the point's attractors
    (:data:`meanfield.analysis.grouping.MATCH_RTOL`)."""

    max_period: int = MAX_PERIOD
    cycle_rtol: float = CYCLE_RTOL
    measure_rtol: float = MEASURE_RTOL
    match_rtol: float = MATCH_RTOL

    def __post_init__(self):
        object.__setattr__(self, "max_period", require_int("max_period", self.max_period, 1))
        for name in ("cycle_rtol", "measure_rtol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
                raise ConfigError(f"{name} = {value!r} is not allowed: must be a number in (0, 1)")
        if (isinstance(self.match_rtol, bool) or not isinstance(self.match_rtol, int | float)
                or not 0 < self.match_rtol < math.inf):
            raise ConfigError(f"match_rtol = {self.match_rtol!r} is not allowed: must be a finite number > 0")

    @property
    def rtol(self) -> tuple[float, float]:
        """(cycle_rtol, measure_rtol), as the grouping takes them."""
        return (float(self.cycle_rtol), float(self.measure_rtol))

    def check_run(self, steps: int, transient: int) -> None:
        """ConfigError unless the tail steps − transient holds two periods of :attr:`max_period` — checked before
        any kernel runs."""
        if require_int("steps", steps, 1) - require_int("transient", transient, 0) < 2 * self.max_period:
            raise ConfigError(f"transient = {transient} is not allowed with steps = {steps}: the tail must hold two "
                              f"periods of max_period = {self.max_period} (steps - transient >= "
                              f"{2 * self.max_period})")


def run_file_tolerances(steps: int, transient: int, max_period: int, rtol) -> Tolerances:
    """The tolerances of a run file's census table (``max_period``, ``rtol`` = [cycle_rtol, measure_rtol]),
    checked with its run length: a ConfigError naming the key otherwise."""
    try:
        cycle, measure = (float(v) for v in rtol)
    except (TypeError, ValueError):
        raise ConfigError(f"rtol = {rtol!r} is not allowed: must be (cycle_rtol, measure_rtol), two numbers in "
                          "(0, 1)") from None
    tolerances = Tolerances(max_period=max_period, cycle_rtol=cycle, measure_rtol=measure)
    tolerances.check_run(steps, transient)
    return tolerances


def check_tolerances(tolerances) -> Tolerances:
    """``tolerances`` if it is a :class:`Tolerances`, else a ConfigError naming what is allowed."""
    if not isinstance(tolerances, Tolerances):
        raise ConfigError(f"tolerances = {tolerances!r} is not allowed: must be a meanfield.census.Tolerances")
    return tolerances


__all__ = ["MAX_PERIOD", "Starts", "Tolerances", "check_tolerances", "run_file_tolerances"]
