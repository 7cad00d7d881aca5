"""Run files: TOML descriptions of a parameter sweep, validated into a frozen :class:`RunSpec`
(design.md, Data flow; issue 3). Everything is checked here, before any numba compilation, and a mistake
is a :class:`~meanfield.errors.ConfigError` naming the key, the value and what is allowed.

A run file (see ``runs/*.toml``)::

    name = "paper_fig3_quick"
    steps = 20000                 # iterations t = 0 .. steps-1 (spec §1.3)
    transient = 10000             # recorded / exponents from t = transient on
    lyapunov = true               # false, true (all L·M exponents) or k leading ones (spec §4.1)
    chunk = 16                    # grid points per Dask task (results do not depend on it)
    backend = "cpu"

    [model]                       # a preset and scalar overrides
    preset = "paper"
    beta_att = 2.2

    [grid]                        # one or two axes, in this order (first = slowest)
    beta_o = { start = 0.0, stop = 3.0, num = 401 }    # numpy.linspace; or an explicit list

    [record]                      # raw tails (optional) and the recording decimation
    observables = ["mo_se"]
    tail = 0
    every = 1

    [reductions]                  # worker-side reductions of one observable (spec §4.2, §4.4)
    observable = "mo_se"
    bins = 500
    y_range = [-1.0, 1.0]
    band_pairs = [[0, 1]]
    band_tol = 0.001
    band_cap = 128

    [start]                       # checkpoint | token | state
    kind = "checkpoint"

    [continuation]                # optional: each point starts from its neighbour (spec §4.2)
    axis = "beta_o"
    direction = "up"              # up | down | both (from the centre of each segment)
    chains = 8                    # independent chains per line, so every worker has work
    pre_steps = 0

    [cluster]                     # optional: local (default) or slurm (dask-jobqueue)
    kind = "local"

    [finite]                      # optional: the finite-N network instead of the MF (issue 6, spec §5.3)
    n_bits = [990, 9900, 99000]   # an extra last grid axis n_bits; multiples of the model's N_se
    replicas = 16
    seed = 0
    sampler = "binomial"          # binomial | bits
    aligned_steps = 20            # rows of the aligned comparison with the mean field
"""
from __future__ import annotations

import json
import os
import tomllib
from dataclasses import asdict, dataclass, field
from functools import cached_property

import numpy as np

from .config import CONTROL_PARAMETERS, SCALAR_PARAMETERS, require_finite, require_int
from .errors import ConfigError
from .model import OBSERVABLES

#: Keys a grid axis may name (design.md: any numeric model parameter, later control gains).
AXIS_NAMES = SCALAR_PARAMETERS + tuple(f"control.{c}" for c in CONTROL_PARAMETERS)
TOP_KEYS = ("name", "steps", "transient", "lyapunov", "chunk", "backend", "model", "grid", "record",
            "reductions", "start", "continuation", "cluster", "finite")
FINITE_KEYS = ("n_bits", "replicas", "seed", "sampler", "aligned_steps")
CLUSTER_KEYS = ("kind", "workers", "cores", "processes", "memory", "walltime", "queue", "account",
                "lifetime", "lifetime_stagger", "job_extra", "interface", "local_directory")
#: Keys of the [start] table for each kind of start (spec §1.4, §3).
START_KEYS = {"checkpoint": ("kind",), "token": ("kind", "row", "feature", "reset_pe"), "state": ("kind", "att", "pe")}
#: Backend names of :func:`meanfield.simulate.simulate_batch`.
BACKENDS = ("cpu", "cuda", "cuda:float64", "cuda:float32")
#: Keys that do not change any stored number: a resumed run may differ in these.
NON_RESULT_KEYS = ("name", "chunk", "cluster")


def _check_keys(table, allowed, where: str) -> dict:
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
        return np.array(self.values, dtype=np.float64)


@dataclass(frozen=True)
class RecordSpec:
    """Raw tails to store: the last ``tail`` recorded rows (0: none) of ``observables``, recorded every
    ``every``-th iteration (spec §1.3 step 8)."""

    observables: tuple = ("mo_se",)
    tail: int = 0
    every: int = 1


@dataclass(frozen=True)
class ReductionSpec:
    """Worker-side reductions of ``observable`` over all recorded rows (spec §4.2, §4.4).

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
    """How every point (or every chain's first point) starts (spec §1.4, §3)."""

    kind: str = "checkpoint"
    row: int = 0
    feature: str = "o"
    reset_pe: bool = True
    att: tuple | None = None
    pe: tuple | None = None


@dataclass(frozen=True)
class ContinuationSpec:
    """Continuation along ``axis`` (spec §4.2, ``--chain``): the axis is cut into ``chains`` segments per
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
    """The ``[finite]`` table (issue 6, spec §5.1, §5.3): every grid point is also run for each N_se in
    ``n_bits`` (an extra last grid axis) with :func:`meanfield.finite.simulate_finite_batch` — ``replicas``
    networks drawing from the streams (``seed``, replica), bits drawn by ``sampler`` — and compared with
    the aligned mean field over its first ``aligned_steps`` rows."""

    n_bits: tuple
    replicas: int = 16
    seed: int = 0
    sampler: str = "binomial"
    aligned_steps: int = 20


@dataclass(frozen=True, eq=False)
class RunSpec:
    """A validated sweep: the model, the grid, the iterations and what each point stores (issue 3)."""

    name: str
    model_table: dict
    axes: tuple
    steps: int
    transient: int
    lyapunov: int = 0
    record: RecordSpec = field(default_factory=RecordSpec)
    reductions: ReductionSpec = field(default_factory=ReductionSpec)
    start: StartSpec = field(default_factory=StartSpec)
    continuation: ContinuationSpec | None = None
    chunk: int = 16
    backend: str = "cpu"
    cluster: dict = field(default_factory=dict)
    finite: FiniteSpec | None = None
    source: str = ""

    @cached_property
    def model(self):
        """The base :class:`~meanfield.config.ModelSpec` (preset + overrides), built once."""
        from .presets import preset
        table = dict(self.model_table)
        return preset(table.pop("preset", "paper"), **table)

    @property
    def grid_axes(self) -> tuple:
        """The stored grid axes: :attr:`axes` (model parameters), then ``n_bits`` for a finite run (issue 6)."""
        if self.finite is None:
            return self.axes
        return self.axes + (Axis("n_bits", tuple(float(n) for n in self.finite.n_bits)),)

    @property
    def shape(self) -> tuple:
        return tuple(len(a.values) for a in self.grid_axes)

    @property
    def n_points(self) -> int:
        return int(np.prod(self.shape))

    @property
    def recorded(self) -> tuple:
        """Observables the kernel records: the tails' and the reductions' (in OBSERVABLES order)."""
        wanted = set(self.record.observables) | {self.reductions.observable}
        return tuple(o for o in OBSERVABLES if o in wanted)

    def parameters(self, indices) -> dict:
        """Axis values of flat grid points ``indices`` (C order, first axis slowest), for simulate_batch."""
        coords = np.unravel_index(np.asarray(indices, dtype=np.int64), self.shape)
        return {a.name: a.array[c] for a, c in zip(self.axes, coords)}

    def n_bits(self, indices) -> np.ndarray:
        """N_se of flat grid points ``indices`` of a finite run (the last grid axis; issue 6)."""
        last = np.asarray(indices, dtype=np.int64) % self.shape[-1]
        return np.asarray(self.finite.n_bits, dtype=np.int64)[last]

    def base_state(self, model=None):
        """The start State of :attr:`start` (spec §1.4); None means the model's checkpoint."""
        from .model import State, pattern_token
        model = self.model if model is None else model
        if self.start.kind == "token":
            return State.from_token(model, pattern_token(model, self.start.row, self.start.feature,
                                                         self.start.reset_pe))
        if self.start.kind == "state":
            return State(att=np.array(self.start.att), pe=np.array(self.start.pe)).check(model)
        return None

    def to_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("name", "model_table", "steps", "transient", "lyapunov", "chunk",
                                             "backend", "cluster")}
        out["axes"] = [[a.name, list(a.values)] for a in self.axes]
        for key in ("record", "reductions", "start", "continuation"):
            value = getattr(self, key)
            out[key] = None if value is None else asdict(value)
        if self.finite is not None:                 # absent otherwise: older files keep their result key
            out["finite"] = asdict(self.finite)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def result_key(self) -> str:
        """Canonical JSON of everything that changes a stored number (resume refuses a mismatch)."""
        data = self.to_dict()
        for key in NON_RESULT_KEYS:
            data.pop(key)
        return json.dumps(data, sort_keys=True)

    def replace(self, **changes) -> "RunSpec":
        """A copy with top-level run-file keys replaced (``steps=...``, ``grid={...}``), validated again."""
        return from_dict(_to_file_form(self.to_dict()) | changes, source="")


def _to_file_form(data: dict) -> dict:
    """Turn :meth:`RunSpec.to_dict` back into the run-file layout accepted by :func:`from_dict`."""
    out = {k: data[k] for k in ("name", "steps", "transient", "lyapunov", "chunk", "backend")}
    out["model"] = dict(data["model_table"])
    out["grid"] = {name: list(values) for name, values in data["axes"]}
    for key in ("record", "reductions", "start", "continuation"):
        value = data[key]
        if value is not None:
            keep = START_KEYS[value["kind"]] if key == "start" else value
            out[key] = {k: v for k, v in value.items() if v is not None and k in keep}
    if data["cluster"]:
        out["cluster"] = dict(data["cluster"])
    if data.get("finite") is not None:
        out["finite"] = {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in data["finite"].items()}
    return out


def _axis(name: str, spec) -> Axis:
    where = f"grid.{name}"
    if name not in AXIS_NAMES:
        raise ConfigError(f"{where}: {name!r} is not a parameter that can be swept; allowed are {list(AXIS_NAMES)}")
    if isinstance(spec, dict):
        _check_keys(spec, ("start", "stop", "num"), where)
        missing = [k for k in ("start", "stop", "num") if k not in spec]
        if missing:
            raise ConfigError(f"{where}: missing {missing} (a linspace needs start, stop and num)")
        values = np.linspace(require_finite(f"{where}.start", spec["start"]),
                             require_finite(f"{where}.stop", spec["stop"]),
                             require_int(f"{where}.num", spec["num"], 1))
    elif isinstance(spec, (list, tuple)):
        values = [require_finite(f"{where}[{i}]", v) for i, v in enumerate(spec)]
    else:
        values = [require_finite(where, spec, "a number, a list of numbers or {start, stop, num}")]
    if len(values) == 0:
        raise ConfigError(f"{where} = {spec!r} is not allowed: the grid axis is empty")
    return Axis(name, tuple(float(v) for v in values))


def _grid(table) -> tuple:
    table = dict(_check_keys(table, AXIS_NAMES + ("control",), "grid"))
    nested = table.pop("control", None)           # TOML `control.kp = ...` parses as a nested table
    if nested is not None:
        table.update({f"control.{k}": v for k, v in _check_keys(nested, CONTROL_PARAMETERS, "grid.control").items()})
    if not 1 <= len(table) <= 2:
        raise ConfigError(f"grid = {sorted(table)} is not allowed: give one or two axes from {list(AXIS_NAMES)}")
    return tuple(_axis(name, spec) for name, spec in table.items())


def _observable(key: str, value) -> str:
    if value not in OBSERVABLES:
        raise ConfigError(f"{key} = {value!r} is not allowed: choose from {list(OBSERVABLES)}")
    return value


def _record(table) -> RecordSpec:
    _check_keys(table, ("observables", "tail", "every"), "record")
    obs = table.get("observables", ["mo_se"])
    obs = [obs] if isinstance(obs, str) else list(obs)
    return RecordSpec(tuple(_observable("record.observables", o) for o in obs),
                      require_int("record.tail", table.get("tail", 0), 0),
                      require_int("record.every", table.get("every", 1), 1))


def _pair(key: str, value, n_features: int) -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ConfigError(f"{key} = {value!r} is not allowed: must be [plotted feature, filter feature]")
    return tuple(require_int(key, v, 0, n_features - 1) for v in value)


def _reductions(table, n_features: int) -> ReductionSpec:
    _check_keys(table, tuple(ReductionSpec.__dataclass_fields__), "reductions")
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


def _start(table) -> StartSpec:
    _check_keys(table, tuple(StartSpec.__dataclass_fields__), "start")
    kind = table.get("kind", "checkpoint")
    allowed = START_KEYS
    if kind not in allowed:
        raise ConfigError(f"start.kind = {kind!r} is not allowed: choose from {list(allowed)} (continuation: "
                          "add a [continuation] table)")
    _check_keys(table, allowed[kind], f"start (kind = {kind!r})")
    if kind == "state" and ("att" not in table or "pe" not in table):
        raise ConfigError("start: kind = 'state' needs att = [[...], ...] (D×M) and pe = [[...], ...] (L×P)")
    as_tuple = (lambda v: None if v is None else tuple(tuple(float(x) for x in row) for row in v))
    reset_pe = table.get("reset_pe", True)
    if not isinstance(reset_pe, bool):
        raise ConfigError(f"start.reset_pe = {reset_pe!r} is not allowed: must be true or false")
    return StartSpec(kind=kind, row=require_int("start.row", table.get("row", 0), 0),
                     feature=str(table.get("feature", "o")), reset_pe=reset_pe,
                     att=as_tuple(table.get("att")), pe=as_tuple(table.get("pe")))


def _continuation(table, axes) -> ContinuationSpec:
    _check_keys(table, tuple(ContinuationSpec.__dataclass_fields__), "continuation")
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


def _finite(table, model) -> FiniteSpec:
    """Validate the ``[finite]`` table (issue 6, spec §5.3)."""
    _check_keys(table, FINITE_KEYS, "finite")
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
    from .finite import SAMPLERS
    if sampler not in SAMPLERS:
        raise ConfigError(f"finite.sampler = {sampler!r} is not allowed: choose one of {list(SAMPLERS)}")
    return FiniteSpec(n_bits=tuple(n_bits), replicas=require_int("finite.replicas", table.get("replicas", 16), 1),
                      seed=require_int("finite.seed", table.get("seed", 0), 0, 2 ** 64 - 1), sampler=sampler,
                      aligned_steps=require_int("finite.aligned_steps", table.get("aligned_steps", 20), 1))


def _lyapunov(value, model) -> int:
    full = model.context * model.n_features
    if value is True:
        return full
    if value is False:
        return 0
    return require_int("lyapunov", value, 0, full)


def _cluster(table) -> dict:
    _check_keys(table, CLUSTER_KEYS, "cluster")
    kind = table.get("kind", "local")
    if kind not in ("local", "slurm"):
        raise ConfigError(f"cluster.kind = {kind!r} is not allowed: choose local or slurm")
    for key in ("workers", "cores", "processes"):
        if key in table:
            require_int(f"cluster.{key}", table[key], 1)
    return dict(table)


def from_dict(data: dict, source: str = "") -> RunSpec:
    """Validate a parsed run file (see the module docstring) into a :class:`RunSpec`."""
    from .model import batch_parameters
    _check_keys(data, TOP_KEYS, "run file")
    for key in ("steps", "transient", "grid"):
        if key not in data:
            raise ConfigError(f"run file: missing required key {key!r}")
    model_table = dict(_check_keys(data.get("model", {}), ("preset",) + AXIS_NAMES + ("context", "control"), "model"))
    if isinstance(model_table.get("control"), dict):
        model_table.update({f"control.{k}": v for k, v in model_table.pop("control").items()})
    steps = require_int("steps", data["steps"], 1)
    transient = require_int("transient", data["transient"], 0)
    if transient >= steps:
        raise ConfigError(f"transient = {transient} is not allowed: must be < steps = {steps}")
    axes = _grid(data["grid"])
    run = RunSpec(
        name=str(data.get("name", "sweep")), model_table=model_table, axes=axes, steps=steps, transient=transient,
        record=_record(data.get("record", {})), start=_start(data.get("start", {})),
        continuation=None if "continuation" not in data else _continuation(data["continuation"], axes),
        chunk=require_int("chunk", data.get("chunk", 16), 1), backend=str(data.get("backend", "cpu")),
        cluster=_cluster(data.get("cluster", {})), source=source)
    model = run.model                                    # preset name and overrides checked here
    object.__setattr__(run, "reductions", _reductions(data.get("reductions", {}), model.n_features))
    object.__setattr__(run, "lyapunov", _lyapunov(data.get("lyapunov", False), model))
    if run.backend not in BACKENDS:     # a GPU is looked for on the workers, which may differ from the client
        raise ConfigError(f"backend = {run.backend!r} is not allowed: available backends are {list(BACKENDS)}")
    if "finite" in data:
        _check_finite_run(run, data, model)
    batch_parameters(model, run.parameters(np.arange(run.n_points)))   # axis values valid for the model
    if run.finite is not None:
        return run                                       # the finite network starts from x0 = W^o[0]
    state = run.base_state(model)
    if state is None and model.checkpoint is None:
        raise ConfigError("start.kind = 'checkpoint': this model has no checkpoint; use token or state")
    depth = model.context if state is None else state.att.shape[0]
    first = run.continuation.pre_steps if run.continuation else 0
    if run.lyapunov and depth + transient + first < model.context:
        raise ConfigError(f"lyapunov = {run.lyapunov}: the window must be full (L = {model.context}) when "
                          f"exponents start; a start of depth {depth} needs transient >= {model.context - depth}"
                          " (spec §7.15)")
    return run


def _check_finite_run(run: RunSpec, data: dict, model) -> None:
    """Attach the [finite] table and refuse what does not apply to the finite network (issue 6, spec §5.3)."""
    finite = _finite(data["finite"], model)
    object.__setattr__(run, "finite", finite)
    if run.lyapunov:
        raise ConfigError(f"lyapunov = {data.get('lyapunov')!r} is not allowed with [finite]: Lyapunov exponents "
                          "are not defined for the sampled network; set lyapunov = false")
    if run.continuation is not None:
        raise ConfigError("continuation is not allowed with [finite]: every finite point starts from x0 = W^o[0]")
    if run.start.kind != "checkpoint":
        raise ConfigError(f"start = {data.get('start')!r} is not allowed with [finite]: the finite network "
                          "starts from x0 = W^o[0] and the mean field from the aligned start (spec §5.3)")
    if run.backend != "cpu":
        raise ConfigError(f"backend = {run.backend!r} is not allowed with [finite]: the finite network runs on "
                          "the CPU; use backend = 'cpu'")
    need = model.context + 2 + finite.aligned_steps
    if run.steps < need:
        raise ConfigError(f"steps = {run.steps} is not allowed with [finite]: need steps >= L + 2 + "
                          f"finite.aligned_steps = {need}")


def load_run(source, **overrides) -> RunSpec:
    """Load and validate a run file: a path to a TOML file, TOML text, or an already parsed dict.

    ``overrides`` replace top-level keys (e.g. ``steps=2000``, ``grid={...}``) before validation.
    """
    if isinstance(source, RunSpec):
        return source.replace(**overrides) if overrides else source
    if isinstance(source, dict):
        data, text = dict(source), ""
    else:
        text = os.fspath(source)
        if "\n" not in text and (text.endswith(".toml") or os.path.exists(text)):
            try:
                with open(text, encoding="utf-8") as fh:
                    text = fh.read()
            except OSError as exc:
                raise ConfigError(f"run file {source!r} cannot be read: {exc.strerror}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"run file {source!r} is not valid TOML: {exc}") from None
    if overrides:
        data.update(overrides)
        text = ""
    return from_dict(data, source=text)


__all__ = ["RunSpec", "Axis", "FiniteSpec", "RecordSpec", "ReductionSpec", "StartSpec", "ContinuationSpec", "load_run",
           "from_dict", "AXIS_NAMES"]
