"""HDF5 storage (h5py), the schema of docs/storage.md: one file per run, named dimensions readable by
``xarray.open_dataset(path, engine="h5netcdf")``, the model/run spec and provenance in attributes.

The only module that imports h5py: every other module reads and writes result files through the functions
here (trajectory files, sweep files, the ``analysis`` group of a classified sweep).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

import h5py
import numpy as np

from ..errors import StoreError
from ..kernels.reductions import bin_edges
from ..model.layout import OBSERVABLES
from ..model.spec import ModelSpec
from .evidence import EVIDENCE
from .provenance import now
from .provenance import record as provenance_record
from .runfile import RunSpec
from .schema import attrs as cf_attrs
from .schema import label_flags
from .tables import MODEL_AXES


def append_provenance(f: h5py.File, record: dict) -> None:
    """Append one provenance record (:func:`meanfield.sweeps.provenance.record`) to the file's ``provenance``
    attribute (a JSON list, docs/storage.md §1) and flush."""
    records = json.loads(f.attrs["provenance"]) if "provenance" in f.attrs else []
    f.attrs["provenance"] = json.dumps(records + [record])
    f.flush()


def update_provenance(f: h5py.File, **fields) -> None:
    """Add ``fields`` to the last provenance record (where and until when a session computed) and flush."""
    records = json.loads(f.attrs["provenance"])
    records[-1].update(fields)
    f.attrs["provenance"] = json.dumps(records)
    f.flush()


def dimension(group: h5py.Group, name: str, values, meta: dict | None = None) -> h5py.Dataset:
    """Create a coordinate dataset ``name`` (strings as UTF-8), mark it as an HDF5 dimension scale and give it
    the CF attributes ``meta`` (default: :func:`meanfield.sweeps.schema.attrs` of ``name``)."""
    values = np.asarray(values)
    if values.dtype.kind in "UO":
        values = np.array(values.tolist(), dtype=h5py.string_dtype())
    scale = group.create_dataset(name, data=values)
    scale.make_scale(name)
    scale.attrs.update(cf_attrs(name) if meta is None else meta)
    return scale


def attach(dataset: h5py.Dataset, *scales: h5py.Dataset) -> h5py.Dataset:
    """Label the axes of ``dataset`` with dimension scales, in order."""
    for axis, scale in enumerate(scales):
        dataset.dims[axis].attach_scale(scale)
    return dataset


def check_output(path, overwrite: bool = False) -> str:
    """Check, without creating anything, that ``path`` can be written: its directory exists and is
    writable, and it does not exist yet unless ``overwrite``."""
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        raise StoreError(f"output {path!r} exists: choose another path or pass overwrite=True (--force)")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
        raise StoreError(f"output {path!r}: directory {directory!r} does not exist or is not writable")
    return path


def open_new(path, overwrite: bool = False) -> h5py.File:
    """Create ``path`` for writing after :func:`check_output`."""
    path = check_output(path, overwrite)
    try:
        return h5py.File(path, "w")
    except OSError as exc:
        raise StoreError(f"output {path!r} cannot be created: {exc}") from None


def write_trajectory(path, trajectory, overwrite: bool = False, record: dict | None = None) -> str:
    """Write a :class:`~meanfield.simulate.Trajectory` with dimensions (step, feature), (exponent) and the
    final state over (window, feature) and (window, pe_bit); CF attributes on every variable, the model spec
    (JSON) and the provenance ``record`` (:func:`meanfield.sweeps.provenance.record`) in attributes
    (docs/storage.md §2)."""
    with open_new(path, overwrite) as f:
        model = trajectory.model
        rows = next((len(getattr(trajectory, o)) for o in OBSERVABLES if getattr(trajectory, o) is not None), 0)
        state = trajectory.final_state
        scales = {"step": trajectory.transient + trajectory.record_every * np.arange(rows),
                  "feature": np.arange(model.n_features), "window": np.arange(model.context)}
        if model.pe_bits:
            scales["pe_bit"] = np.arange(model.pe_bits)
        if trajectory.lyapunov is not None:
            scales["exponent"] = np.arange(len(trajectory.lyapunov))
        scales = {name: dimension(f, name, values) for name, values in scales.items()}

        def put(name, data, *dims):
            dataset = attach(f.create_dataset(name, data=data), *(scales[d] for d in dims))
            dataset.attrs.update(cf_attrs(name))

        for name in OBSERVABLES:
            if getattr(trajectory, name) is not None:
                put(name, getattr(trajectory, name), "step", "feature")
        if trajectory.lyapunov is not None:
            put("lyapunov", trajectory.lyapunov, "exponent")
            put("lyapunov_stderr", trajectory.lyapunov_stderr, "exponent")
        window = np.full((model.context, model.n_features), np.nan)     # rows beyond the depth D stay NaN
        window[:state.att.shape[0]] = state.att
        put("final_att", window, "window", "feature")
        put("final_depth", state.att.shape[0])
        if model.pe_bits:
            put("final_pe", state.pe, "window", "pe_bit")
        f.attrs.update({"kind": "trajectory", "model": model.to_json(), "steps": trajectory.steps,
                        "transient": trajectory.transient, "record_every": trajectory.record_every,
                        "created": now()})
        append_provenance(f, record or provenance_record("simulate"))
    return os.fspath(path)


def read_attrs(path) -> dict:
    """Attributes of a result file (JSON attributes decoded); StoreError when it is not readable."""
    if not os.path.isfile(path):
        raise StoreError(f"{os.fspath(path)!r} does not exist or is not a file")
    try:
        with h5py.File(path, "r") as f:
            attrs = dict(f.attrs)
    except OSError as exc:
        if "lock" in str(exc):
            raise StoreError(f"{os.fspath(path)!r} is open for writing by another process (a running sweep?): try "
                             "again when it has finished") from None
        raise StoreError(f"{path!r} is not a readable HDF5 file: {exc}") from None
    for key, value in attrs.items():
        if isinstance(value, str) and value[:1] in "{[":
            try:
                attrs[key] = json.loads(value)
            except json.JSONDecodeError:
                pass
    return attrs


# --- sweeps (docs/storage.md §3) ---------------------------------------------------------------------
#
# Every dataset is allocated in full (contiguous, early allocation, fill values) when the file is created and
# the file is flushed then: afterwards a sweep only overwrites raw data bytes, never HDF5 metadata, so a
# client killed at any moment (SIGKILL included) cannot leave a file whose structure is broken. Each chunk's
# data is written and flushed before its points' ``done`` flags are set and flushed again.

SWEEP_KIND = "sweep"


#: Datasets particular to the system a sweep runs (:attr:`RunSpec.system`): the mean field hands its final
#: state on (continuation, resume); the finite network stores its distance to the aligned mean field
#: (docs/model.md §6.3) and has no end state to hand off.
SYSTEM_DATASETS = {
    "mean_field": {"final_depth": ((), np.int16, 0), "final_att": (("window", "feature"), np.float64, np.nan),
                   "final_pe": (("window", "pe_bit"), np.float64, np.nan)},
    "finite": {"finite_error": ((), np.float64, np.nan), "finite_error_stderr": ((), np.float64, np.nan)},
}


def sweep_layout(run: RunSpec) -> dict:
    """Datasets of a sweep file: name -> (extra dims, dtype, fill). Every dataset has the grid axes first
    (docs/storage.md §3)."""
    model = run.model
    spec = run.reductions
    layout = {"done": ((), np.uint8, 0), **SYSTEM_DATASETS[run.system],
              "hist": (("feature", "ybin"), np.uint32, 0), "distinct": (("feature",), np.int32, -1),
              "evidence": (("evidence_key",), np.float64, np.nan),
              "max_integral": ((), np.float64, np.nan), "diverged_at": ((), np.int64, -1)}
    if run.continuation is not None and run.continuation.pre_steps:
        layout.update({"pre_depth": ((), np.int16, 0), "pre_att": (("window", "feature"), np.float64, np.nan),
                       "pre_pe": (("window", "pe_bit"), np.float64, np.nan)})
    if run.lyapunov:
        layout.update({"lyapunov": (("exponent",), np.float64, np.nan),
                       "lyapunov_stderr": (("exponent",), np.float64, np.nan)})
    if spec.band_pairs:
        layout.update({"band_values": (("pair", "band_point"), np.float64, np.nan),
                       "band_count": (("pair",), np.int64, -1), "band_distinct": (("pair",), np.int32, -1)})
    if run.record.tail:
        layout.update({f"tail_{o}": (("tail_step", "feature"), np.float64, np.nan) for o in run.record.observables})
    if model.pe_bits == 0:
        layout = {k: v for k, v in layout.items() if "pe_bit" not in v[0]}
    return layout


def _coordinates(run: RunSpec, layout: dict) -> dict:
    """The coordinates of a sweep file: the grid axes, then every dimension some dataset of ``layout`` uses
    (no empty or unused dimension is written)."""
    model, spec = run.model, run.reductions
    edges = bin_edges(spec)
    rows = (run.steps - run.transient + run.record.every - 1) // run.record.every
    tail = min(run.record.tail, rows)
    coords = {a.name: a.array for a in run.grid_axes}
    if run.finite is not None:
        coords["n_bits"] = np.asarray(run.finite.n_bits, dtype=np.int64)
    extra = dict(window=np.arange(model.context), feature=np.arange(model.n_features),
                 pe_bit=np.arange(model.pe_bits), exponent=np.arange(run.lyapunov),
                 ybin=(edges[:-1] + edges[1:]) / 2, pair=[f"{p}|{q}" for p, q in spec.band_pairs],
                 band_point=np.arange(spec.band_cap), evidence_key=list(EVIDENCE),
                 tail_step=run.transient + run.record.every * np.arange(rows - tail, rows))
    used = {d for dims, _, _ in layout.values() for d in dims}
    coords.update({name: values for name, values in extra.items() if name in used})
    return coords


def stored_model(run: RunSpec) -> str:
    """The ``model`` attribute of a sweep file: the base model's JSON with the swept parameters set to null
    (their values are the grid axes); over a ``seed`` axis the weights and tables too (one set per seed)."""
    data = run.model.to_dict()
    for axis in run.axes:
        if axis.name.startswith("control."):
            data["control"][axis.name[8:]] = None
        elif axis.name in MODEL_AXES:
            data.update(coefficients=None, pe_weights=None, weights=None, checkpoint=None)
        else:
            data[axis.name] = None
    return json.dumps(data, sort_keys=True)


def sweep_bytes(run: RunSpec) -> int:
    """Bytes of the data a sweep file of ``run`` holds (its datasets and coordinates; HDF5 adds a few kB)."""
    layout = sweep_layout(run)
    coords = _coordinates(run, layout)
    total = sum(np.asarray(v).size * 8 for v in coords.values())
    for dims, dtype, _ in layout.values():
        total += int(np.prod(run.shape + tuple(len(coords[d]) for d in dims))) * np.dtype(dtype).itemsize
    return total


def _allocate(f: h5py.File, name: str, shape: tuple, dtype, fill) -> h5py.Dataset:
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    dcpl.set_fill_time(h5py.h5d.FILL_TIME_ALLOC)
    return f.create_dataset(name, shape=shape, dtype=dtype, fillvalue=fill, dcpl=dcpl)


def create_sweep(path, run, overwrite: bool = False) -> h5py.File:
    """Create the sweep file of ``run`` with every dataset allocated, named dimensions, CF attributes and the
    run spec (TOML text and JSON); returns it open for writing, flushed. The caller appends the provenance
    record (:func:`append_provenance`) once it knows where the sweep computes."""
    f = open_new(path, overwrite)
    try:
        layout = sweep_layout(run)
        if run.reductions.band_pairs:
            layout.update(pair_plotted=(("pair",), None, None), pair_filter=(("pair",), None, None))
        coords = _coordinates(run, layout)
        observable = run.reductions.observable
        scales = {name: dimension(f, name, values, cf_attrs(name, observable)) for name, values in coords.items()}
        if run.reductions.band_pairs:
            pairs = np.array(run.reductions.band_pairs)
            for name, column in (("pair_plotted", pairs[:, 0]), ("pair_filter", pairs[:, 1])):
                attach(f.create_dataset(name, data=column), scales["pair"]).attrs.update(cf_attrs(name))
        axes = [a.name for a in run.grid_axes]
        for name, (dims, dtype, fill) in sweep_layout(run).items():
            shape = run.shape + tuple(len(coords[d]) for d in dims)
            dataset = attach(_allocate(f, name, shape, dtype, fill), *(scales[d] for d in axes + list(dims)))
            dataset.attrs.update(cf_attrs(name, observable))
        f.attrs.update({"kind": SWEEP_KIND, "run_name": run.name, "run_toml": run.source, "run_json": run.to_json(),
                        "run_key": run.result_key(), "model": stored_model(run), "axes": json.dumps(axes),
                        "points_total": run.n_points, "evidence_keys": json.dumps(EVIDENCE), "created": now()})
        f.flush()
    except BaseException:
        f.close()
        os.remove(path)
        raise
    return f


def points_done(path, run) -> int:
    """How many points of ``run`` an existing sweep file holds (read only); StoreError if it belongs to another
    spec."""
    _check_same_run(os.fspath(path), run)
    with h5py.File(os.fspath(path), "r") as f:
        return int(done_flags(f).sum())


def open_sweep(path, run) -> h5py.File:
    """Reopen an existing sweep file of ``run`` for resuming; StoreError if it belongs to another spec."""
    path = os.fspath(path)
    if not os.access(path, os.W_OK):
        raise StoreError(f"output {path!r} exists but is not writable; cannot resume")
    _check_same_run(path, run)
    try:
        return h5py.File(path, "r+")
    except OSError as exc:
        raise StoreError(f"output {path!r} cannot be opened for resuming: {exc}") from None


def _check_same_run(path: str, run) -> None:
    attrs = read_attrs(path)
    if attrs.get("kind") != SWEEP_KIND:
        raise StoreError(f"output {path!r} exists and is not a sweep file (kind = {attrs.get('kind')!r}); "
                         "choose another path or overwrite it")
    stored = json.loads(attrs["run_key"]) if isinstance(attrs["run_key"], str) else attrs["run_key"]
    wanted = json.loads(run.result_key())
    differ = sorted(k for k in set(stored) | set(wanted) if stored.get(k) != wanted.get(k))
    if differ:
        raise StoreError(f"output {path!r} holds a sweep with another run spec (differs in {differ}); refusing "
                         "to mix results: choose another output path or overwrite it")


def _runs(shape: tuple, indices: np.ndarray):
    """Split sorted flat indices into runs that are contiguous along the last axis: (position slice, region)."""
    last = shape[-1]
    start = 0
    for stop in range(1, len(indices) + 1):
        if stop == len(indices) or indices[stop] != indices[stop - 1] + 1 or indices[stop] % last == 0:
            lead = np.unravel_index(indices[start], shape)[:-1]
            col = indices[start] % last
            yield slice(start, stop), tuple(int(i) for i in lead) + (slice(col, col + stop - start),)
            start = stop


def write_points(f: h5py.File, run, indices, arrays: dict) -> None:
    """Write per-point ``arrays`` (point on axis 0, in the order of ``indices``) then set the done flags."""
    indices = np.asarray(indices, dtype=np.int64)
    order = np.argsort(indices, kind="stable")
    indices = indices[order]
    regions = list(_runs(run.shape, indices))
    for name in sweep_layout(run):
        if name == "done":
            continue
        data = np.asarray(arrays[name])[order]
        for rows, region in regions:
            f[name][region] = data[rows]
    f.flush()
    for _, region in regions:
        f["done"][region] = 1
    f.flush()


def read_points(f: h5py.File, names, indices) -> dict:
    """Per-point datasets ``names`` at flat ``indices`` (in that order), point on axis 0; names the file does
    not hold are left out."""
    indices = np.asarray(indices, dtype=np.int64)
    coords = np.unravel_index(indices, tuple(f["done"].shape))
    return {name: f[name][...][coords] for name in names if name in f}


def done_flags(f: h5py.File) -> np.ndarray:
    """The flat (C order) bool array of points whose results are stored."""
    return f["done"][...].reshape(-1).astype(bool)


def mark_finished(f: h5py.File) -> None:
    """Stamp the ``finished`` attribute (UTC time) on a sweep file whose points are all done."""
    f.attrs["finished"] = now()


def sweep_summary(path) -> dict:
    """Points done / total, the axes and their ranges, and the stored datasets of a sweep file."""
    attrs = read_attrs(path)
    with h5py.File(path, "r") as f:
        done = f["done"][...]
        axes = {name: (float(f[name][0]), float(f[name][-1]), len(f[name])) for name in attrs["axes"]}
    return {"attrs": attrs, "done": int(done.sum()), "total": int(done.size), "axes": axes,
            "datasets": datasets(path)}


def datasets(path) -> dict:
    """Shape and dtype of every top-level dataset of a result file: name -> (shape, dtype name)."""
    with h5py.File(os.fspath(path), "r") as f:
        return {name: (obj.shape, str(obj.dtype)) for name, obj in f.items() if isinstance(obj, h5py.Dataset)}


@dataclass(frozen=True, eq=False)
class SweepData:
    """A sweep file read back: its attributes (JSON decoded: ``run_json``, ``model``, ``axes`` ...), the grid
    axes in order with their coordinates, and the datasets asked for (whole arrays, grid axes first)."""

    path: str
    attrs: dict
    axes: list
    coords: dict
    arrays: dict

    @property
    def run(self) -> dict:
        """The run spec as stored (:meth:`RunSpec.to_dict` of the sweep)."""
        return self.attrs["run_json"]

    def model(self, **values) -> ModelSpec:
        """The sweep's model with the swept parameters (null in the ``model`` attribute) set to ``values``
        (default: their first grid value); over a ``seed`` axis, the model of that seed, rebuilt from the run."""
        if "seed" in self.axes:
            from .runfile import _to_file_form, load_run
            run = load_run(_to_file_form(self.attrs["run_json"]))
            model = run.seed_models[int(values.get("seed", self.coords["seed"][0]))]
            return model.replace(**{k: float(v) for k, v in values.items() if k != "seed"})
        data = dict(self.attrs["model"])
        data["control"] = dict(data.get("control", {}))
        for name in self.axes:
            value = float(values.get(name, self.coords[name][0]))
            if name.startswith("control."):
                data["control"][name[8:]] = value
            elif name in data:
                data[name] = value
        return ModelSpec.from_dict(data)


def read_sweep(path, names=()) -> SweepData:
    """The datasets ``names`` that a sweep file holds (absent ones are left out), with its attributes and axes;
    StoreError when ``path`` is not a readable sweep file."""
    path = os.fspath(path)
    attrs = read_attrs(path)
    if attrs.get("kind") != SWEEP_KIND:
        raise StoreError(f"{path!r} is not a sweep file (kind = {attrs.get('kind')!r}): this needs a file written "
                         "by `meanfield sweep` (a trajectory file is drawn by `meanfield simulate --plot`)")
    axes = list(attrs["axes"])
    with h5py.File(path, "r") as f:
        coords = {name: f[name][...] for name in axes}
        arrays = {name: f[name][...] for name in names if name in f}
    return SweepData(path, attrs, axes, coords, arrays)


def write_analysis(path, label: np.ndarray, period: np.ndarray, attrs: dict) -> None:
    """(Re)write the ``analysis`` group of a sweep file (docs/storage.md §4): ``label`` (codes into the JSON list
    ``attrs["labels"]``, CF flags) and ``period`` over the grid axes, and the group attributes ``attrs``."""
    axes = read_attrs(path)["axes"]
    with h5py.File(os.fspath(path), "r+") as f:
        if "analysis" in f:
            del f["analysis"]
        group = f.create_group("analysis")
        scales = [dimension(group, name, f[name][...], dict(f[name].attrs)) for name in axes]
        attach(group.create_dataset("label", data=label), *scales).attrs.update(
            label_flags(json.loads(attrs["labels"])))
        attach(group.create_dataset("period", data=period), *scales).attrs.update(cf_attrs("period"))
        group.attrs.update(attrs)


def open_run(path):
    """A result file as one ``xarray.Dataset`` (lazy, engine h5netcdf; docs/storage.md): every variable with its
    coordinates and CF attributes, and for a classified sweep the ``analysis`` group's ``label`` and
    ``period`` (read into memory; the group's attributes on ``label``). Close it before resuming the sweep into
    the same file."""
    import xarray
    path = os.fspath(path)
    read_attrs(path)                                   # StoreError when not readable
    dataset = xarray.open_dataset(path, engine="h5netcdf")
    with h5py.File(path, "r") as f:
        classified = "analysis" in f
    if classified:
        with xarray.open_dataset(path, engine="h5netcdf", group="analysis") as analysis:
            for name in ("label", "period"):
                dataset[name] = analysis[name].load()
            dataset["label"].attrs.update({k: v for k, v in analysis.attrs.items() if k != "labels"})
    return dataset
