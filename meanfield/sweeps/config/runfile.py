"""Run files: TOML descriptions of a parameter sweep, validated into a frozen :class:`RunSpec`, built once,
complete. Everything is checked here (each table by :mod:`.tables`, the tables together by :mod:`.run_checks`,
the grid axis by axis; the run's length, exponent count and backend by :mod:`meanfield.model.run_rules`, as
:func:`meanfield.simulation.simulate_batch` checks them), before any numba compilation, and a mistake is a
:class:`~meanfield.errors.ConfigError` naming the key, the value and what is allowed.

A run file (see ``runs/*.toml``)::

    name = "paper_fig3_quick"
    steps = 20000                 # iterations t = 0 .. steps-1 (docs/model.md §3.2)
    transient = 10000             # recorded / exponents from t = transient on
    lyapunov = true               # false, true (all: L·M, + 2M with a PID controller) or k leading ones (§4)
    chunk = 16                    # grid points per Dask task (results do not depend on it; default: default_chunk)
    backend = "cpu"

    [model]                       # a preset, its knobs and scalar overrides (meanfield.presets)
    preset = "paper"              # paper | reference (seed, n_features, pe_bits, ...) | random (seed, n_features, ...)
    beta_att = 2.2

    [grid]                        # one or two axes, in this order (first = slowest)
    beta_o = { start = 0.0, stop = 3.0, num = 401 }    # numpy.linspace; or an explicit list
    # seed = [1, 2, 3, 4]         # integers: one model per weight realisation (presets reference, random)

    [record]                      # raw tails (optional) and the recording decimation
    observables = ["mo_se"]
    tail = 0
    every = 1

    [reductions]                  # worker-side reductions of one observable (docs/model.md §7.1)
    observable = "mo_se"
    bins = 500
    y_range = [-1.0, 1.0]
    band_pairs = [[0, 1]]
    band_tol = 0.001
    band_cap = 128

    [start]                       # checkpoint (file) | token (row, feature, reset_pe) | correlation (index) | state
    kind = "checkpoint"           # the model's own, or file = "a reference checkpoint.npz"

    [continuation]                # optional: each point starts from its neighbour (docs/model.md §7.3)
    axis = "beta_o"
    direction = "up"              # up | down | both (from the centre of each segment)
    chains = 8                    # independent chains per line, so every worker has work
    pre_steps = 0

    [cluster]                     # optional: where to compute (keys: meanfield.sweeps.config.clusterspec)
    kind = "local"                # local (default) or slurm; SLURM also with --slurm

    [attractors]                  # optional: a census of many starts at every point, chained along an axis
    starts = 64                   # fresh starts per point (docs/attractors.md §6)
    direction = "up"              # up | both (hysteresis)

    [basins]                      # optional, with [attractors] at one point: a basin map (docs/basins.md §7)
    features = [0, 1]             # the plane through the checkpoint window along two features
    resolution = 512              # pixels per side; `chunk` pixel rows per Dask task
    steps = 1000
    transient = 936

    [curves]                      # optional: two-parameter curves once the points are done (.curves)
    parameters = ["beta_o", "beta_att"]
    interval = [0.5, 7.0]

    [finite]                      # optional: the finite-N network instead of the MF (docs/model.md §6)
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

from ...errors import ConfigError
from ...model.layout import OBSERVABLES
from ...model.run_rules import check_full_window, check_lengths, exponent_count, parse_backend
from ...model.spec import require_int
from ...short_repr import short_repr
from .attractors import AttractorSpec, check_census_run, parse_attractors
from .basins import BasinSpec, check_basins_run, parse_basins
from .clusterspec import CLUSTER_KEYS, ClusterSpec, parse_cluster
from .curves import CurveStudy, check_curves_run, parse_curves_table
from .run_checks import (
    DEFAULT_PRESET,
    build_model,
    check_axes,
    check_finite_run,
    check_model_axes,
    parse_model_table,
)
from .shipped import is_run_name, shipped_run
from .tables import (
    MODEL_AXES,
    START_KEYS,
    TOP_KEYS,
    Axis,
    ContinuationSpec,
    FiniteSpec,
    RecordSpec,
    ReductionSpec,
    StartSpec,
    check_keys,
    check_points,
    parse_continuation,
    parse_finite,
    parse_grid,
    parse_record,
    parse_reductions,
    parse_start,
)

#: Keys that do not change any stored number: a resumed run may differ in these.
NON_RESULT_KEYS = ("name", "chunk", "cluster")


@short_repr
@dataclass(frozen=True, eq=False)
class RunSpec:
    """A validated sweep: the model, the grid, the iterations and what each point stores."""

    model_table: dict
    axes: tuple
    steps: int
    transient: int
    name: str = "sweep"
    lyapunov: int = 0
    record: RecordSpec = field(default_factory=RecordSpec)
    reductions: ReductionSpec = field(default_factory=ReductionSpec)
    start: StartSpec = field(default_factory=StartSpec)
    continuation: ContinuationSpec | None = None
    chunk: int = 16
    backend: str = "cpu"
    cluster: dict = field(default_factory=dict)
    finite: FiniteSpec | None = None
    attractors: AttractorSpec | None = None
    basins: BasinSpec | None = None
    curves: CurveStudy | None = None
    source: str = ""

    @cached_property
    def model(self):
        """The base :class:`~meanfield.model.spec.ModelSpec` (preset + overrides), built once."""
        return self._build_model()

    @cached_property
    def seed_models(self) -> dict:
        """A ModelSpec for every value of a ``seed`` grid axis, by seed (empty without one), built once."""
        axis = self._seed_axis
        return {} if axis is None else {seed: self._build_model(seed) for seed in axis.values}

    def _build_model(self, seed=None):
        return build_model(self.model_table, seed)

    @property
    def device(self) -> str:
        """Where the kernel runs, ``"cpu"`` or ``"cuda"`` (:func:`meanfield.model.run_rules.parse_backend`)."""
        return parse_backend(self.backend)[0]

    @property
    def dtype(self) -> str:
        """The kernel's floating-point type, ``"float64"`` or ``"float32"`` (``cuda:float32``)."""
        return parse_backend(self.backend)[1]

    @cached_property
    def cluster_spec(self) -> ClusterSpec:
        """The validated ``[cluster]`` table (:mod:`~meanfield.sweeps.config.clusterspec`); :attr:`cluster` keeps
        it as written."""
        return parse_cluster(self.cluster)

    @property
    def _seed_axis(self) -> Axis | None:
        return next((a for a in self.axes if a.name == "seed"), None)

    def model_groups(self, indices) -> list:
        """Flat grid points ``indices`` grouped by the model they run: [(ModelSpec, positions in indices)], one
        group per seed of a ``seed`` axis, else one group with :attr:`model`."""
        indices = np.asarray(indices, dtype=np.int64)
        axis = self._seed_axis
        if axis is None:
            return [(self.model, np.arange(len(indices)))]
        coords = np.unravel_index(indices, self.shape)[[a.name for a in self.grid_axes].index("seed")]
        seeds = axis.array[coords]
        return [(self.seed_models[int(seed)], np.flatnonzero(seeds == seed)) for seed in np.unique(seeds)]

    @property
    def system(self) -> str:
        """The system every point runs, ``"finite"`` with a ``[finite]`` table (docs/model.md §6), else
        ``"mean_field"``; the key of the worker tasks (:data:`meanfield.sweeps.execute.tasks.TASKS`)."""
        return "mean_field" if self.finite is None else "finite"

    @property
    def grid_axes(self) -> tuple:
        """The stored grid axes, :attr:`axes` (model parameters) then ``n_bits`` for a finite run."""
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
        """Observables the kernel records, the tails' and the reductions' (in OBSERVABLES order)."""
        wanted = set(self.record.observables) | {self.reductions.observable}
        return tuple(o for o in OBSERVABLES if o in wanted)

    def parameters(self, indices) -> dict:
        """Values of the parameter axes (not the model axes, :meth:`model_groups`) at flat grid points
        ``indices`` (C order, first axis slowest), for simulate_batch."""
        coords = np.unravel_index(np.asarray(indices, dtype=np.int64), self.shape)
        return {a.name: a.array[c] for a, c in zip(self.axes, coords) if a.name not in MODEL_AXES}

    def n_bits(self, indices) -> np.ndarray:
        """N_se of flat grid points ``indices`` of a finite run (the last grid axis)."""
        last = np.asarray(indices, dtype=np.int64) % self.shape[-1]
        return np.asarray(self.finite.n_bits, dtype=np.int64)[last]

    def base_state(self, model=None):
        """The start State of :attr:`start` (docs/model.md §2.2); None means the model's checkpoint."""
        return self.start.state(self.model if model is None else model)

    def to_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("name", "model_table", "steps", "transient", "lyapunov", "chunk",
                                             "backend", "cluster")}
        out["axes"] = [[a.name, list(a.values)] for a in self.axes]
        for key in ("record", "reductions", "start", "continuation"):
            value = getattr(self, key)
            out[key] = None if value is None else asdict(value)
        for key, default in (("file", None), ("index", 0)):   # absent at their defaults: older files keep their key
            if out["start"][key] == default:
                del out["start"][key]
        for key in ("finite", "attractors", "basins"):        # absent otherwise: older files keep their result key
            if getattr(self, key) is not None:
                out[key] = asdict(getattr(self, key))
        if self.curves is not None:
            out["curves"] = self.curves.to_table()
        if self.attractors is not None and not self.attractors.transients:
            del out["attractors"]["transients"]                   # absent when off: older files keep their key
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def result_key(self) -> str:
        """Canonical JSON of everything that changes a stored number (resume refuses a mismatch)."""
        data = self.to_dict()
        for key in NON_RESULT_KEYS:
            data.pop(key)
        return json.dumps(data, sort_keys=True)

    def replace(self, **changes) -> RunSpec:
        """A copy with run-file keys replaced (``steps=...``, ``grid={...}``, dotted keys as in :func:`load_run`),
        validated again."""
        return load_run(self, **changes)


def stored_run(data: dict) -> RunSpec:
    """The RunSpec of a sweep file from its stored :meth:`RunSpec.to_dict` (the ``run_json`` attribute)."""
    return from_dict(_to_file_form(data), source="")


def _to_file_form(data: dict) -> dict:
    """Turn :meth:`RunSpec.to_dict` back into the run-file layout accepted by :func:`from_dict`."""
    out = {k: data[k] for k in ("name", "steps", "transient", "chunk", "backend")}
    out["lyapunov"] = data["lyapunov"] or False       # stored as a count, 0 for none
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
    for key in ("attractors", "basins", "curves"):
        if data.get(key) is not None:
            out[key] = {k: v for k, v in data[key].items() if v is not None}
    return out


def from_dict(data: dict, source: str = "") -> RunSpec:
    """Validate a parsed run file (see the module docstring) into a :class:`RunSpec`, built once, complete."""
    check_keys(data, TOP_KEYS, "run file")
    for key in ("steps", "transient", "grid"):
        if key not in data:
            raise ConfigError(f"run file: missing required key {key!r}")
    model_table = parse_model_table(data.get("model", {}))
    steps, transient = check_lengths(data["steps"], data["transient"])
    axes = parse_grid(data["grid"])
    model = build_model(model_table)                      # the preset's name and overrides are checked here
    parse_backend(data.get("backend", RunSpec.backend))   # a GPU is looked for on the workers, not here
    checks = {"name": str, "chunk": lambda v: require_int("chunk", v, 1), "backend": str,
              "lyapunov": lambda v: exponent_count(v, model, [a.name for a in axes]),
              "record": parse_record, "start": parse_start,
              "reductions": lambda v: parse_reductions(v, model.n_features),
              "continuation": lambda v: parse_continuation(v, axes),
              "cluster": lambda v: dict(check_keys(v, CLUSTER_KEYS, "cluster")),
              "finite": lambda v: parse_finite(v, model),
              "attractors": lambda v: parse_attractors(v, axes), "basins": lambda v: parse_basins(v, model),
              "curves": lambda v: parse_curves_table(v, model_table, str(data.get("name", RunSpec.name)))}
    optional = {key: check(data[key]) for key, check in checks.items() if key in data}
    optional.setdefault("chunk", default_chunk(steps, optional))
    run = RunSpec(model_table=model_table, axes=axes, steps=steps, transient=transient, source=source, **optional)
    parse_cluster(run.cluster)                           # [cluster] checked here, before any output is touched
    check_model_axes(run, model_table.get("preset", DEFAULT_PRESET))
    check_axes(model, axes)
    check_curves_run(run)
    if run.finite is not None:
        check_finite_run(run, data, model)
        check_points(run.n_points, " x ".join(str(n) for n in run.shape))
        return run                                       # the finite network starts from x0 = W^o[0]
    if run.attractors is not None:
        check_census_run(run)
    if run.basins is not None:
        check_basins_run(run)
    state = run.base_state(model)
    check_full_window(run.lyapunov, model.context if state is None else state.att.shape[0], transient,
                      model.context, run.continuation.pre_steps if run.continuation else 0)
    return run


#: Steps of all its points that a default task aims at, and the bounds of the default chunk (:func:`default_chunk`).
CHUNK_STEPS, CHUNK_BOUNDS = 100_000, (16, 4096)


def default_chunk(steps: int, tables: dict) -> int:
    """Grid points per task when the run file sets no ``chunk``: about :data:`CHUNK_STEPS` steps of plain runs
    per task within :data:`CHUNK_BOUNDS` (a short run's points go in thousands, so that the client handles a
    few tasks per second, docs/storage.md §3); 16 with exponents, a census, a basin map or a finite network."""
    lo, hi = CHUNK_BOUNDS
    if tables.get("lyapunov") or any(tables.get(key) is not None for key in ("attractors", "basins", "finite")):
        return lo
    return max(lo, min(hi, CHUNK_STEPS // steps))


def _set(data: dict, key: str, value) -> None:
    """Set ``key`` in a parsed run file; a dotted key (``grid.beta_o.num``) addresses an entry of a table as a
    TOML dotted key does, copying the tables it passes through."""
    *path, last = key.split(".")
    table = data
    for depth, part in enumerate(path):
        inner = table.get(part, {})
        if not isinstance(inner, dict):
            where = ".".join(path[:depth + 1])
            raise ConfigError(f"{key} = {value!r} is not allowed: {where} = {inner!r} is not a table")
        table[part] = table = dict(inner)
    table[last] = value


def load_run(source: str | os.PathLike | dict | RunSpec, **overrides) -> RunSpec:
    """Load and validate a run file: a path to a TOML file, the name of a run shipped with the package
    (``"paper_fig3_quick"``, :mod:`meanfield.sweeps.config.shipped`), TOML text, an already parsed dict or a RunSpec.

    ``overrides`` replace keys before validation: top-level keys (``steps=2000``, ``grid={...}``) or, with
    dots as in TOML, entries of a table: ``load_run(path, **{"grid.beta_o.num": 41, "model.beta_att": 2.0})``
    (the command line's ``meanfield sweep RUN.toml --set grid.beta_o.num=41``).
    """
    if isinstance(source, RunSpec):
        if not overrides:
            return source
        data, text = _to_file_form(source.to_dict()), ""
    elif isinstance(source, dict):
        data, text = dict(source), ""
    else:
        text = os.fspath(source)
        if "\n" not in text and is_run_name(text):
            text = shipped_run(text)
        elif "\n" not in text and (text.endswith(".toml") or os.path.exists(text)):
            try:
                with open(text, encoding="utf-8") as fh:
                    text = fh.read()
            except OSError as exc:
                raise ConfigError(f"run file {source!r} cannot be read: {exc.strerror}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"run file {source!r} is not valid TOML: {exc}") from None
    for key, value in overrides.items():
        _set(data, key, value)
    if overrides and text:             # the stored text says what was changed on top of the file
        text += "\n# overrides applied on top of this file: " + ", ".join(f"{k} = {v!r}" for k, v in overrides.items())
    return from_dict(data, source=text)


__all__ = ["RunSpec", "load_run", "from_dict", "stored_run"]
