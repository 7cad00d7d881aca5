"""The tables of a run file (``[grid]``, ``[record]``, ``[reductions]``, ``[start]``, ``[continuation]``,
``[finite]``; ``[cluster]`` in :mod:`.clusterspec`): one frozen dataclass and one validator each.
:mod:`.runfile` assembles them into a :class:`~meanfield.sweeps.spec.runfile.RunSpec`. A mistake is a
:class:`~meanfield.errors.ConfigError` naming the key, the value and what is allowed, raised before any
compilation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError
from ...finite import SAMPLERS
from ...model.layout import OBSERVABLES
from ...model.spec import CONTROL_PARAMETERS, SCALAR_PARAMETERS, require_finite, require_int
from ...model.state import State, pattern_token

#: Top-level keys of a run file.
TOP_KEYS = ("name", "steps", "transient", "lyapunov", "chunk", "backend", "model", "grid", "record",
            "reductions", "start", "continuation", "cluster", "finite")
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
            return State.from_token(model, pattern_token(model, self.row, self.feature, self.reset_pe))
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


def _observable(key: str, value) -> str:
    if value not in OBSERVABLES:
        raise ConfigError(f"{key} = {value!r} is not allowed: choose from {list(OBSERVABLES)}")
    return value


def parse_record(table) -> RecordSpec:
    check_keys(table, ("observables", "tail", "every"), "record")
    obs = table.get("observables", ["mo_se"])
    obs = [obs] if isinstance(obs, str) else list(obs)
    return RecordSpec(tuple(_observable("record.observables", o) for o in obs),
                      require_int("record.tail", table.get("tail", 0), 0),
                      require_int("record.every", table.get("every", 1), 1))


def _pair(key: str, value, n_features: int) -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ConfigError(f"{key} = {value!r} is not allowed: must be [plotted feature, filter feature]")
    return tuple(require_int(key, v, 0, n_features - 1) for v in value)


def parse_reductions(table, n_features: int) -> ReductionSpec:
    check_keys(table, tuple(ReductionSpec.__dataclass_fields__), "reductions")
    d = ReductionSpec()
    y_range = table.get("y_range", d.y_range)
    if not isinstance(y_range, (list, tuple)) or len(y_range) != 2:
        raise ConfigError(f"reductions.y_range = {y_range!r} is not allowed: must be [low, high]")
    lo, hi = (require_finite("reductions.y_range", v) for v in y_range)
    if not lo < hi:
        raise ConfigError(f"reductions.y_range = {list(y_range)} is not allowed: need low < high")
    scale = require_finite("reductions.scale", table.get("scale", d.scale), "a positive number")
    tol = require_finite("reductions.band_tol", table.get("band_tol", d.band_tol), "a number >= 0")
    if scale <= 0 or tol < 0:
        raise ConfigError(f"reductions.scale = {scale}, band_tol = {tol} are not allowed: need scale > 0, tol >= 0")
    pairs = table.get("band_pairs", [list(p) for p in d.band_pairs])
    if not isinstance(pairs, (list, tuple)):
        raise ConfigError(f"reductions.band_pairs = {pairs!r} is not allowed: must be a list of [plotted, filter]")
    if n_features < 2 and "band_pairs" not in table:
        pairs = []                                     # no filter feature to pair with
    return ReductionSpec(
        observable=_observable("reductions.observable", table.get("observable", d.observable)),
        bins=require_int("reductions.bins", table.get("bins", d.bins), 1, 100_000), y_range=(lo, hi),
        levels=require_int("reductions.levels", table.get("levels", d.levels), 1), scale=scale,
        band_pairs=tuple(_pair("reductions.band_pairs", p, n_features) for p in pairs), band_tol=tol,
        band_cap=require_int("reductions.band_cap", table.get("band_cap", d.band_cap), 0, 1_000_000))


def parse_start(table) -> StartSpec:
    check_keys(table, tuple(StartSpec.__dataclass_fields__), "start")
    kind = table.get("kind", "checkpoint")
    allowed = START_KEYS
    if kind not in allowed:
        raise ConfigError(f"start.kind = {kind!r} is not allowed: choose from {list(allowed)} (continuation: "
                          "add a [continuation] table)")
    check_keys(table, allowed[kind], f"start (kind = {kind!r})")
    if kind == "state" and ("att" not in table or "pe" not in table):
        raise ConfigError("start: kind = 'state' needs att = [[...], ...] (D×M) and pe = [[...], ...] (L×P)")
    file = table.get("file")
    if file is not None and not (isinstance(file, str) and file):
        raise ConfigError(f"start.file = {file!r} is not allowed: must be the path of a checkpoint .npz")
    as_tuple = (lambda v: None if v is None else tuple(tuple(float(x) for x in row) for row in v))
    reset_pe = table.get("reset_pe", True)
    if not isinstance(reset_pe, bool):
        raise ConfigError(f"start.reset_pe = {reset_pe!r} is not allowed: must be true or false")
    return StartSpec(kind=kind, row=require_int("start.row", table.get("row", 0), 0),
                     feature=str(table.get("feature", "o")), reset_pe=reset_pe,
                     att=as_tuple(table.get("att")), pe=as_tuple(table.get("pe")), file=file,
                     index=require_int("start.index", table.get("index", 0), 0))


def parse_continuation(table, axes) -> ContinuationSpec:
    check_keys(table, tuple(ContinuationSpec.__dataclass_fields__), "continuation")
    names = [a.name for a in axes]
    axis = table.get("axis", names[0])
    if axis not in names:
        raise ConfigError(f"continuation.axis = {axis!r} is not allowed: must be a grid axis {names}")
    direction = table.get("direction", "up")
    if direction not in ("up", "down", "both"):
        raise ConfigError(f"continuation.direction = {direction!r} is not allowed: choose up, down or both")
    length = len(axes[names.index(axis)].values)
    return ContinuationSpec(axis, direction, require_int("continuation.chains", table.get("chains", 1), 1, length),
                            require_int("continuation.pre_steps", table.get("pre_steps", 0), 0))


def parse_finite(table, model) -> FiniteSpec:
    """Validate the ``[finite]`` table (docs/model.md §6.3)."""
    check_keys(table, FINITE_KEYS, "finite")
    if "n_bits" not in table:
        raise ConfigError("finite: missing required key 'n_bits' (a list of N_se values, e.g. [990, 9900, 99000])")
    if model.weights is None:
        raise ConfigError("finite: this model has no weight matrices (built from coefficient tables); the finite "
                          "network needs the model's weights")
    n_src = model.weights["o"].shape[1] - model.pe_bits
    values = table["n_bits"]
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    if not values:
        raise ConfigError("finite.n_bits = [] is not allowed: give at least one N_se")
    n_bits = []
    for i, v in enumerate(values):
        n = require_int(f"finite.n_bits[{i}]", v, 1)
        if n % n_src:
            raise ConfigError(f"finite.n_bits = {v!r} is not allowed: must be a positive multiple of the model's "
                              f"semantic size N_se = {n_src} (e.g. {n_src * max(1, round(n / n_src))})")
        n_bits.append(n)
    if len(set(n_bits)) != len(n_bits):
        raise ConfigError(f"finite.n_bits = {values!r} is not allowed: the values must be distinct")
    sampler = table.get("sampler", "binomial")
    if sampler not in SAMPLERS:
        raise ConfigError(f"finite.sampler = {sampler!r} is not allowed: choose one of {list(SAMPLERS)}")
    return FiniteSpec(n_bits=tuple(n_bits), replicas=require_int("finite.replicas", table.get("replicas", 16), 1),
                      seed=require_int("finite.seed", table.get("seed", 0), 0, 2 ** 64 - 1), sampler=sampler,
                      aligned_steps=require_int("finite.aligned_steps", table.get("aligned_steps", 20), 1))


def parse_lyapunov(value, model) -> int:
    full = model.context * model.n_features
    if value is True:
        return full
    if value is False:
        return 0
    return require_int("lyapunov", value, 0, full)
