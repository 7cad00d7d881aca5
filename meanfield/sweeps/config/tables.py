"""The tables of a run file (``[grid]``, ``[record]``, ``[reductions]``, ``[start]``, ``[continuation]``,
``[finite]``; ``[cluster]`` in :mod:`.clusterspec`, ``[attractors]`` in :mod:`.attractors`): one frozen
dataclass and one validator each; a key left out takes the dataclass's default, the only place defaults are
written (:func:`checked`).
:mod:`.runfile` assembles them into a :class:`~meanfield.sweeps.config.runfile.RunSpec`. A mistake is a
:class:`~meanfield.errors.ConfigError` naming the key, the value and what is allowed, raised before any
compilation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...analysis.sections import TABLE_LEVELS
from ...errors import ConfigError
from ...finite import SAMPLERS
from ...model.layout import OBSERVABLES
from ...model.spec import CONTROL_PARAMETERS, SCALAR_PARAMETERS, require_finite, require_int
from ...model.state import State

#: Top-level keys of a run file.
TOP_KEYS = ("name", "steps", "transient", "lyapunov", "chunk", "backend", "model", "grid", "record",
            "reductions", "start", "continuation", "cluster", "finite", "attractors", "basins", "curves")
#: Grid axes that change the model itself, not a parameter of its map: each value is another weight realisation
#: (presets ``reference`` and ``random``); integers.
MODEL_AXES = ("seed",)
#: Keys a grid axis may name: any scalar model parameter, the PID gains and the model axes.
AXIS_NAMES = SCALAR_PARAMETERS + tuple(f"control.{c}" for c in CONTROL_PARAMETERS) + MODEL_AXES
FINITE_KEYS = ("n_bits", "replicas", "seed", "sampler", "aligned_steps")
#: Most points one sweep may have (2500 times the paper's Figure 3 sweep): the client holds a flag and a plan
#: entry per point, and the file allocates every point when it is created. Larger grids: several run files.
MAX_POINTS = 10_000_000
#: Keys of the [start] table for each kind of start (docs/model.md §2.2).
START_KEYS = {"checkpoint": ("kind", "file"), "token": ("kind", "row", "feature", "reset_pe"),
              "correlation": ("kind", "index"), "state": ("kind", "att", "pe")}


def check_keys(table, allowed, where: str) -> dict:
    """Return ``table`` (a dict) or raise ConfigError naming the first key of ``where`` not in ``allowed``."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where} = {table!r} is not allowed: must be a table")
    unknown = [k for k in table if k not in allowed]
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (value {table[unknown[0]]!r}); allowed keys are "
                          f"{list(allowed)}")
    return table


@dataclass(frozen=True)
class Axis:
    """One grid axis: a parameter name and its values (in the order given)."""

    name: str
    values: tuple

    @property
    def array(self) -> np.ndarray:
        return np.array(self.values, dtype=np.int64 if self.name in MODEL_AXES else np.float64)


@dataclass(frozen=True)
class RecordSpec:
    """Raw tails to store: the last ``tail`` recorded rows (0: none) of ``observables``, recorded every
    ``every``-th iteration (docs/model.md §3.2)."""

    observables: tuple = ("mo_se",)
    tail: int = 0
    every: int = 1


@dataclass(frozen=True)
class ReductionSpec:
    """Worker-side reductions of ``observable`` over all recorded rows (docs/model.md §7.1).

    ``bins`` fixed y-bins on ``y_range`` (density histogram per feature); distinct counts at ``levels``
    levels quantised on [-``scale``, ``scale``]; Poincaré band: for each (plotted, filter) feature pair the
    values where |filter| <= ``band_tol`` (the first ``band_cap`` kept, the total counted).
    """

    observable: str = "mo_se"
    bins: int = 500
    y_range: tuple = (-1.0, 1.0)
    levels: int = 5001
    scale: float = 1.0
    band_pairs: tuple = ((0, 1),)
    band_tol: float = 0.001
    band_cap: int = 128


@dataclass(frozen=True)
class StartSpec:
    """How every point (or every chain's first point) starts (docs/model.md §2.2): the model's checkpoint or the
    checkpoint ``file``; the token W^``feature``[``row``] (PE bits reset to pos(0) with ``reset_pe``); the
    correlation ``index``; or the state (``att``, ``pe``)."""

    kind: str = "checkpoint"
    row: int = 0
    feature: str = "o"
    reset_pe: bool = True
    att: tuple | None = None
    pe: tuple | None = None
    file: str | None = None
    index: int = 0

    def state(self, model):
        """The start State for ``model``; None means the model's own checkpoint. ConfigError (naming the key)
        when it does not fit the model."""
        if self.kind == "token":
            return State.from_pattern(model, self.row, self.feature, self.reset_pe)
        if self.kind == "correlation":
            return State.from_correlation(model, self.index)
        if self.kind == "state":
            return State(att=np.array(self.att), pe=np.array(self.pe)).check(model)
        if self.file is not None:
            state = State.from_checkpoint_file(self.file)
            try:
                return state.check(model)
            except ConfigError as exc:
                raise ConfigError(f"start.file = {self.file!r}: {exc}") from None
        if model.checkpoint is None:
            raise ConfigError(f"start.kind = 'checkpoint': model {model.name!r} has no checkpoint; give a checkpoint "
                              "file (start.file, --checkpoint) or start from a token, a correlation index or a state")
        return None


@dataclass(frozen=True)
class ContinuationSpec:
    """Continuation along ``axis`` (docs/model.md §7.3, ``--chain``): the axis is cut into ``chains`` segments per
    line; in each, points start from the hand-off state of their neighbour, going ``up``, ``down`` or
    ``both`` ways from the segment centre. The hand-off is the final state, or with ``pre_steps`` > 0 the
    state after a pre-run of ``pre_steps`` iterations from the neighbour's hand-off (the reference's
    pre-checkpoints), from which the point's own run then starts."""

    axis: str
    direction: str = "up"
    chains: int = 1
    pre_steps: int = 0


@dataclass(frozen=True)
class FiniteSpec:
    """The ``[finite]`` table (docs/model.md §6): every grid point is also run for each N_se in
    ``n_bits`` (an extra last grid axis) with :func:`meanfield.finite.simulate_finite_batch` — ``replicas``
    networks drawing from the streams (``seed``, replica), bits drawn by ``sampler`` — and compared with
    the aligned mean field over its first ``aligned_steps`` rows."""

    n_bits: tuple
    replicas: int = 16
    seed: int = 0
    sampler: str = "binomial"
    aligned_steps: int = 20


def _axis(name: str, spec) -> Axis:
    where = f"grid.{name}"
    if name not in AXIS_NAMES:
        raise ConfigError(f"{where}: {name!r} is not a parameter that can be swept; allowed are {list(AXIS_NAMES)}")
    if isinstance(spec, dict):
        check_keys(spec, ("start", "stop", "num"), where)
        missing = [k for k in ("start", "stop", "num") if k not in spec]
        if missing:
            raise ConfigError(f"{where}: missing {missing} (a linspace needs start, stop and num)")
        values = np.linspace(require_finite(f"{where}.start", spec["start"]),
                             require_finite(f"{where}.stop", spec["stop"]),
                             require_int(f"{where}.num", spec["num"], 1, MAX_POINTS))
    elif isinstance(spec, (list, tuple)):
        values = [require_finite(f"{where}[{i}]", v) for i, v in enumerate(spec)]
    else:
        values = [require_finite(where, spec, "a number, a list of numbers or {start, stop, num}")]
    if len(values) == 0:
        raise ConfigError(f"{where} = {spec!r} is not allowed: the grid axis is empty")
    if name in MODEL_AXES:                              # seeds: distinct integers
        seeds = tuple(require_int(f"{where}[{i}]", v, 0, 2 ** 32 - 1) for i, v in enumerate(values))
        if len(set(seeds)) != len(seeds):
            raise ConfigError(f"{where} = {spec!r} is not allowed: the seeds must be distinct")
        return Axis(name, seeds)
    return Axis(name, tuple(float(v) for v in values))


def parse_grid(table) -> tuple:
    table = dict(check_keys(table, AXIS_NAMES + ("control",), "grid"))
    nested = table.pop("control", None)           # TOML `control.kp = ...` parses as a nested table
    if nested is not None:
        table.update({f"control.{k}": v for k, v in check_keys(nested, CONTROL_PARAMETERS, "grid.control").items()})
    if not 1 <= len(table) <= 2:
        raise ConfigError(f"grid = {sorted(table)} is not allowed: give one or two axes from {list(AXIS_NAMES)}")
    axes = tuple(_axis(name, spec) for name, spec in table.items())
    check_points(int(np.prod([len(a.values) for a in axes])), " x ".join(str(len(a.values)) for a in axes))
    return axes


def check_points(n_points: int, shape: str) -> None:
    """Refuse a grid of more than :data:`MAX_POINTS` points."""
    if n_points > MAX_POINTS:
        raise ConfigError(f"grid = {shape} = {n_points} points is not allowed: at most {MAX_POINTS} points per "
                          "sweep; split the grid into several run files")


def checked(cls, table, where: str, checks: dict):
    """``cls(**values)`` from the keys ``table`` (a dict) gives, each value through ``checks[key]``; a key left
    out takes the dataclass's default, the one place defaults are written."""
    check_keys(table, tuple(checks), where)
    return cls(**{key: checks[key](value) for key, value in table.items()})


def _observable(key: str, value) -> str:
    if value not in OBSERVABLES:
        raise ConfigError(f"{key} = {value!r} is not allowed: choose from {list(OBSERVABLES)}")
    return value


def _observables(value) -> tuple:
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, (list, tuple)):
        raise ConfigError(f"record.observables = {value!r} is not allowed: must be a list of {list(OBSERVABLES)}")
    return tuple(_observable("record.observables", o) for o in values)


def parse_record(table) -> RecordSpec:
    return checked(RecordSpec, table, "record", {
        "observables": _observables, "tail": lambda v: require_int("record.tail", v, 0),
        "every": lambda v: require_int("record.every", v, 1)})


def _pair(key: str, value, n_features: int) -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ConfigError(f"{key} = {value!r} is not allowed: must be [plotted feature, filter feature]")
    return tuple(require_int(key, v, 0, n_features - 1) for v in value)


def _y_range(value) -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ConfigError(f"reductions.y_range = {value!r} is not allowed: must be [low, high]")
    lo, hi = (require_finite("reductions.y_range", v) for v in value)
    if not lo < hi:
        raise ConfigError(f"reductions.y_range = {list(value)} is not allowed: need low < high")
    return lo, hi


def _at_least(key: str, value, low: float, strict: bool) -> float:
    number = require_finite(key, value, f"a number {'>' if strict else '>='} {low}")
    if number < low or (strict and number == low):
        raise ConfigError(f"{key} = {value!r} is not allowed: must be a number {'>' if strict else '>='} {low}")
    return number


def parse_reductions(table, n_features: int) -> ReductionSpec:
    """The ``[reductions]`` table; a one-feature model has no filter feature, so no band pairs unless given."""
    check_keys(table, tuple(ReductionSpec.__dataclass_fields__), "reductions")
    if n_features < 2 and "band_pairs" not in table:
        table = {**table, "band_pairs": []}

    def pairs(value):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"reductions.band_pairs = {value!r} is not allowed: must be a list of [plotted, "
                              "filter]")
        return tuple(_pair("reductions.band_pairs", p, n_features) for p in value)

    return checked(ReductionSpec, table, "reductions", {
        "observable": lambda v: _observable("reductions.observable", v),
        "bins": lambda v: require_int("reductions.bins", v, 1, 100_000), "y_range": _y_range,
        "levels": lambda v: require_int("reductions.levels", v, 1, TABLE_LEVELS),
        "scale": lambda v: _at_least("reductions.scale", v, 0, strict=True), "band_pairs": pairs,
        "band_tol": lambda v: _at_least("reductions.band_tol", v, 0, strict=False),
        "band_cap": lambda v: require_int("reductions.band_cap", v, 0, 1_000_000)})


def _flag(key: str, value) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} = {value!r} is not allowed: must be true or false")
    return value


def parse_start(table) -> StartSpec:
    check_keys(table, tuple(StartSpec.__dataclass_fields__), "start")
    kind = table.get("kind", StartSpec.kind)
    if kind not in START_KEYS:
        raise ConfigError(f"start.kind = {kind!r} is not allowed: choose from {list(START_KEYS)} (continuation: "
                          "add a [continuation] table)")
    if kind == "state" and ("att" not in table or "pe" not in table):
        raise ConfigError("start: kind = 'state' needs att = [[...], ...] (D×M) and pe = [[...], ...] (L×P)")

    def file(value):
        if not (isinstance(value, str) and value):
            raise ConfigError(f"start.file = {value!r} is not allowed: must be the path of a checkpoint .npz")
        return value

    rows = (lambda v: tuple(tuple(float(x) for x in row) for row in v))
    checks = {"kind": str, "row": lambda v: require_int("start.row", v, 0), "feature": str,
              "reset_pe": lambda v: _flag("start.reset_pe", v), "att": rows, "pe": rows, "file": file,
              "index": lambda v: require_int("start.index", v, 0)}
    return checked(StartSpec, table, f"start (kind = {kind!r})", {key: checks[key] for key in START_KEYS[kind]})


def parse_continuation(table, axes) -> ContinuationSpec:
    """The ``[continuation]`` table; its axis is the first grid axis unless named."""
    names = [a.name for a in axes]
    table = {"axis": names[0], **check_keys(table, tuple(ContinuationSpec.__dataclass_fields__), "continuation")}
    if table["axis"] not in names:
        raise ConfigError(f"continuation.axis = {table['axis']!r} is not allowed: must be a grid axis {names}")
    length = len(axes[names.index(table["axis"])].values)

    def direction(value):
        if value not in ("up", "down", "both"):
            raise ConfigError(f"continuation.direction = {value!r} is not allowed: choose up, down or both")
        return value

    return checked(ContinuationSpec, table, "continuation", {
        "axis": str, "direction": direction, "chains": lambda v: require_int("continuation.chains", v, 1, length),
        "pre_steps": lambda v: require_int("continuation.pre_steps", v, 0)})


def parse_finite(table, model) -> FiniteSpec:
    """Validate the ``[finite]`` table (docs/model.md §6.3)."""
    check_keys(table, FINITE_KEYS, "finite")
    if "n_bits" not in table:
        raise ConfigError("finite: missing required key 'n_bits' (a list of N_se values, e.g. [990, 9900, 99000])")
    if model.weights is None:
        raise ConfigError("finite: this model has no weight matrices (built from coefficient tables); the finite "
                          "network needs the model's weights")
    n_src = model.weights["o"].shape[1] - model.pe_bits

    def n_bits(values):
        values = list(values) if isinstance(values, (list, tuple)) else [values]
        if not values:
            raise ConfigError("finite.n_bits = [] is not allowed: give at least one N_se")
        out = []
        for i, v in enumerate(values):
            n = require_int(f"finite.n_bits[{i}]", v, 1)
            if n % n_src:
                raise ConfigError(f"finite.n_bits = {v!r} is not allowed: must be a positive multiple of the "
                                  f"model's semantic size N_se = {n_src} (e.g. {n_src * max(1, round(n / n_src))})")
            out.append(n)
        if len(set(out)) != len(out):
            raise ConfigError(f"finite.n_bits = {values!r} is not allowed: the values must be distinct")
        return tuple(out)

    def sampler(value):
        if value not in SAMPLERS:
            raise ConfigError(f"finite.sampler = {value!r} is not allowed: choose one of {list(SAMPLERS)}")
        return value

    return checked(FiniteSpec, table, "finite", {
        "n_bits": n_bits, "replicas": lambda v: require_int("finite.replicas", v, 1),
        "seed": lambda v: require_int("finite.seed", v, 0, 2 ** 64 - 1), "sampler": sampler,
        "aligned_steps": lambda v: require_int("finite.aligned_steps", v, 1)})

