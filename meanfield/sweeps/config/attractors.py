"""The ``[attractors]`` table of a run file: a census of many starts at every grid point, chained along an axis
(docs/attractors.md §6). Validated like the other tables (:mod:`.tables`): a mistake is a
:class:`~meanfield.errors.ConfigError` naming the key, the value and what is allowed, before any compilation.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis.grouping import CYCLE_RTOL, MATCH_RTOL, MEASURE_RTOL
from ...census.options import MAX_PERIOD, run_file_tolerances
from ...errors import ConfigError
from ...model.spec import require_finite, require_int
from ...systems.starts import SAMPLERS
from .tables import MODEL_AXES, check_keys, checked


@dataclass(frozen=True)
class AttractorSpec:
    """The ``[attractors]`` table (docs/attractors.md §6): at every grid point, a census of ``starts`` fresh
    starts drawn by ``sampler`` (``uniform`` windows or random ``token``s, seeded by ``seed``; the same starts at
    every point), cycles up to ``max_period``, identity tolerances ``cycle_rtol`` and ``measure_rtol``; then the
    censuses are chained along ``axis`` (default: the first grid axis) ``up``, or ``both`` ways (hysteresis),
    carrying each point's attractors to its neighbour and matching ids within ``match_rtol``. At most
    ``max_attractors`` attractors per point are stored from the fresh census (the rest are counted). With
    ``transients`` steps (0: off), the starts that end on a chaotic transient are followed on: its share and
    escape rate are stored (:mod:`meanfield.census.transients`)."""

    axis: str
    starts: int = 64
    sampler: str = "uniform"
    seed: int = 0
    max_period: int = MAX_PERIOD
    max_attractors: int = 8
    cycle_rtol: float = CYCLE_RTOL
    measure_rtol: float = MEASURE_RTOL
    match_rtol: float = MATCH_RTOL
    direction: str = "up"
    transients: int = 0

    @property
    def rtol(self) -> tuple:
        return self.cycle_rtol, self.measure_rtol

    @property
    def directions(self) -> tuple:
        return ("up", "down") if self.direction == "both" else ("up",)


def parse_attractors(table, axes) -> AttractorSpec:
    """The ``[attractors]`` table; its axis is the first grid axis unless named."""
    names = [a.name for a in axes]
    table = {"axis": names[0], **check_keys(table, tuple(AttractorSpec.__dataclass_fields__), "attractors")}
    if table["axis"] not in names or table["axis"] in MODEL_AXES:
        raise ConfigError(f"attractors.axis = {table['axis']!r} is not allowed: must be a parameter axis of the grid "
                          f"{[n for n in names if n not in MODEL_AXES]}")

    def choice(key, allowed):
        def check(value):
            if value not in allowed:
                raise ConfigError(f"attractors.{key} = {value!r} is not allowed: choose from {list(allowed)}")
            return value
        return check

    def fraction(key):
        def check(value):
            number = require_finite(f"attractors.{key}", value, "a number in (0, 1)")
            if not 0 < number < 1:
                raise ConfigError(f"attractors.{key} = {value!r} is not allowed: must be a number in (0, 1)")
            return number
        return check

    return checked(AttractorSpec, table, "attractors", {
        "axis": str, "starts": lambda v: require_int("attractors.starts", v, 1, 1_000_000),
        "sampler": choice("sampler", tuple(SAMPLERS)), "seed": lambda v: require_int("attractors.seed", v, 0),
        "max_period": lambda v: require_int("attractors.max_period", v, 1, 100_000),
        "max_attractors": lambda v: require_int("attractors.max_attractors", v, 1, 1000),
        "cycle_rtol": fraction("cycle_rtol"), "measure_rtol": fraction("measure_rtol"),
        "match_rtol": fraction("match_rtol"), "direction": choice("direction", ("up", "both")),
        "transients": lambda v: require_int("attractors.transients", v, 0)})


def check_census_run(run) -> None:
    """Refuse an ``[attractors]`` table the census cannot run (docs/attractors.md §6)."""
    spec = run.attractors
    if run.device != "cpu":
        raise ConfigError(f"backend = {run.backend!r} is not allowed with [attractors]: the census runs on the CPU")
    try:
        run_file_tolerances(run.steps, run.transient, spec.max_period, spec.rtol)
    except ConfigError as exc:
        raise ConfigError(f"attractors.max_period = {spec.max_period}: {exc}") from None
    if 0 < spec.transients < run.steps:
        raise ConfigError(f"attractors.transients = {spec.transients} is not allowed: 0 (off) or at least steps = "
                          f"{run.steps} (the starts are followed one census run at a time)")
