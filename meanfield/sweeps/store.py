"""HDF5 storage (h5py), the schema of docs/storage.md: one file per run, named dimensions readable by
``xarray.open_dataset(path, engine="h5netcdf")``, the model/run spec and provenance in attributes.

The only module that imports h5py: every other module reads and writes result files through the functions
here (trajectory files, sweep files, the ``analysis`` group of a classified sweep).
"""
from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass

import h5py
import numpy as np

from ..errors import StoreError
from ..kernels.reductions import bin_edges
from ..model.layout import OBSERVABLES
from ..model.spec import ModelSpec
from .evidence import EVIDENCE
from .lock import writer_lock
from .provenance import now
from .provenance import record as provenance_record
from .runfile import RunSpec
from .schema import attrs as cf_attrs
from .schema import label_flags
from .tables import MODEL_AXES

#: Suffix of a file being created: ``OUT.h5.part`` becomes ``OUT.h5`` by an atomic rename (docs/storage.md §5).
PART_SUFFIX = ".part"


def append_provenance(f: h5py.Group, record: dict) -> None:
    """Append one provenance record (:func:`meanfield.sweeps.provenance.record`) to the ``provenance`` attribute
    (a JSON list, docs/storage.md §1) of a file, or of a refinement round's group, and flush."""
    records = json.loads(f.attrs["provenance"]) if "provenance" in f.attrs else []
    f.attrs["provenance"] = json.dumps(records + [record])
    f.file.flush()


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


#: What h5py raises when HDF5 cannot write (a full disk, a file-size limit): OSError, or RuntimeError from a flush.
WRITE_ERRORS = (OSError, RuntimeError)


def reason(exc: Exception) -> str:
    """The short cause of an error raised by h5py (HDF5's ``error message = '...'`` when it gives one)."""
    text = str(exc)
    found = re.search(r"error message = '([^']*)'", text)
    if found:
        return found.group(1)
    return getattr(exc, "strerror", None) or (text.splitlines()[0] if text else type(exc).__name__)


def check_output(path, overwrite: bool = False, make_dirs: bool = False) -> str:
    """Check, without creating anything, that ``path`` can be written: not a directory, its directory exists
    (or, with ``make_dirs``, can be created) and is writable, and it does not exist yet unless ``overwrite``."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise StoreError(f"output {path!r} is a directory: give a file name, e.g. {os.path.join(path, 'out.h5')!r}")
    if os.path.exists(path) and not overwrite:
        raise StoreError(f"output {path!r} exists: choose another path or pass overwrite=True (--force)")
    directory = os.path.dirname(os.path.abspath(path))
    while make_dirs and not os.path.lexists(directory):
        directory = os.path.dirname(directory)
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
        raise StoreError(f"output {path!r}: directory {directory!r} does not exist or is not writable")
    return path


def reserve(path, nbytes: int) -> None:
    """Create ``path`` with ``nbytes`` allocated and empty it again: StoreError, with nothing left behind,
    when the disk or the process's file-size limit cannot take that much. HDF5 itself is not reliable once a
    write fails (its later flushes fail too), so a file it cannot finish is never started."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    except OSError as exc:
        raise StoreError(f"output {path!r} cannot be created: {exc.strerror}") from None
    try:
        if nbytes and hasattr(os, "posix_fallocate"):
            os.posix_fallocate(fd, 0, nbytes)
    except OSError as exc:
        os.remove(path)
        raise StoreError(f"output {path!r} cannot be created: {exc.strerror} ({nbytes / 2 ** 20:.3g} MiB "
                         "needed)") from None
    finally:
        os.close(fd)


@contextmanager
def atomic_file(path, nbytes: int = 0):
    """An h5py file created as ``path + PART_SUFFIX`` (after :func:`reserve` of ``nbytes``) and renamed to
    ``path`` when the block ends; on any error the partial file is removed (a write error becomes one
    StoreError line)."""
    path = os.fspath(path)
    part = path + PART_SUFFIX
    reserve(part, nbytes)
    try:
        with h5py.File(part, "w") as f:
            yield f
        os.replace(part, path)
    except BaseException as exc:
        if os.path.exists(part):
            os.remove(part)
        if isinstance(exc, WRITE_ERRORS) and not isinstance(exc, StoreError):
            raise StoreError(f"output {path!r} cannot be written: {reason(exc)}") from None
        raise


@contextmanager
def reading(path):
    """``path`` open read-only without HDF5's file lock, so a running sweep's file can be read (its writer only
    overwrites raw data and sets ``done`` flags after the data, §3); StoreError when it is not readable."""
    path = os.fspath(path)
    try:
        f = h5py.File(path, "r", locking=False)
    except OSError as exc:
        raise StoreError(f"{path!r} is not a readable HDF5 file: {reason(exc)}") from None
    with f:
        yield f


def write_trajectory(path, trajectory, overwrite: bool = False, record: dict | None = None) -> str:
    """Write a :class:`~meanfield.simulate.Trajectory` with dimensions (step, feature), (exponent) and the
    final state over (window, feature) and (window, pe_bit); CF attributes on every variable, the model spec
    (JSON), the divergence step and the provenance ``record`` (:func:`meanfield.sweeps.provenance.record`) in
    attributes (docs/storage.md §2)."""
    arrays = [getattr(trajectory, o) for o in OBSERVABLES] + [trajectory.lyapunov, trajectory.lyapunov_stderr]
    with atomic_file(check_output(path, overwrite), sum(a.nbytes for a in arrays if a is not None)) as f:
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
                        "created": now(), "diverged_at": _or(trajectory.diverged_at, -1),
                        "max_integral": _or(trajectory.max_integral, np.nan)})
        append_provenance(f, record or provenance_record("simulate"))
    return os.fspath(path)


def _or(value, default):
    return default if value is None else value


def read_attrs(path) -> dict:
    """Attributes of a result file (JSON attributes decoded); StoreError when it is not readable."""
    with reading(path) as f:
        attrs = dict(f.attrs)
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


def _allocate(f: h5py.File, name: str, shape: tuple, dtype, fill) -> h5py.Dataset:
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    dcpl.set_fill_time(h5py.h5d.FILL_TIME_ALLOC)
    return f.create_dataset(name, shape=shape, dtype=dtype, fillvalue=fill, dcpl=dcpl)


#: Bound on the HDF5 metadata of one dataset of a sweep file (object header, dimension-scale references and
#: attributes: 1-2 kB measured in these files).
METADATA_NBYTES = 4096


def sweep_nbytes(run: RunSpec) -> int:
    """Bytes ``run``'s sweep file takes (every dataset is allocated when it is created), coordinates and a
    bound on the metadata (:data:`METADATA_NBYTES` per dataset) included."""
    layout = sweep_layout(run)
    coords = _coordinates(run, layout)
    total = sum(np.asarray(values).nbytes for values in coords.values())
    total += METADATA_NBYTES * (len(coords) + len(layout) + 2)
    for dims, dtype, _ in layout.values():
        total += run.n_points * int(np.prod([len(coords[d]) for d in dims])) * np.dtype(dtype).itemsize
    return total


def _populate(f: h5py.Group, run: RunSpec) -> None:
    """Allocate every dataset of the sweep ``run`` in ``f`` (a file, or a refinement group) with its named
    dimensions and CF attributes, and write its attributes (run spec as TOML text and JSON, the model with its
    swept parameters null); the provenance record is appended by the caller (:func:`append_provenance`)."""
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


def create_sweep(path, run, overwrite: bool = False) -> h5py.File:
    """Create the sweep file of ``run`` at ``path`` with every dataset allocated, named dimensions, CF attributes
    and the run spec (TOML text and JSON); returns it open for writing, flushed. The caller appends the
    provenance record (:func:`append_provenance`) once it knows where the sweep computes. On any error the
    partial file is removed (an OSError, e.g. a full disk, becomes one StoreError line)."""
    path = check_output(path, overwrite)
    reserve(path, sweep_nbytes(run))
    try:
        f = h5py.File(path, "w")
    except OSError as exc:
        raise StoreError(f"output {path!r} cannot be created: {reason(exc)}") from None
    try:
        _populate(f, run)
        f.flush()
    except BaseException as exc:
        try:
            f.close()
        except WRITE_ERRORS:
            pass                                      # a full disk fails the close too; the file goes anyway
        os.remove(path)
        if isinstance(exc, WRITE_ERRORS) and not isinstance(exc, StoreError):
            raise StoreError(f"output {path!r} cannot be created: {reason(exc)}") from None
        raise
    return f


def sweep_state(path) -> dict:
    """What a file holds, read-only: ``kind`` (None when absent), ``run_key`` (decoded, None when absent),
    ``done`` and ``total`` points; StoreError when it is not a readable HDF5 file."""
    with reading(path) as f:
        kind, key = f.attrs.get("kind"), f.attrs.get("run_key")
        done = f["done"][...] if kind == SWEEP_KIND and "done" in f else np.zeros(0, np.uint8)
    return {"kind": kind, "run_key": None if key is None else json.loads(key), "done": int(done.sum()),
            "total": int(done.size)}


def differences(state: dict, run: RunSpec) -> list:
    """Top-level keys of the run spec in which the sweep file of ``state`` (:func:`sweep_state`) differs
    from ``run`` (only keys that change stored numbers, :meth:`RunSpec.result_key`)."""
    stored, wanted = state["run_key"] or {}, json.loads(run.result_key())
    return sorted(k for k in set(stored) | set(wanted) if stored.get(k) != wanted.get(k))


#: Group of a sweep file that holds its refinement rounds (docs/storage.md §6).
REFINE_GROUP = "refine"


def open_refinement(path, name: str, run: RunSpec) -> tuple:
    """(file, group): the refinement round ``name`` of a sweep file, a sweep of its own (``run``, an explicit
    grid) stored in the group ``refine/<name>`` with the layout of a sweep file; created with every dataset
    allocated, or reopened to resume when it holds the same run (StoreError otherwise)."""
    path = os.fspath(path)
    try:
        f = h5py.File(path, "r+")
    except OSError as exc:
        raise StoreError(f"{path!r} cannot be opened to refine it: {exc}") from None
    try:
        key = f"{REFINE_GROUP}/{name}"
        if key in f:
            if f[key].attrs["run_key"] != run.result_key():
                raise StoreError(f"{path!r}: refinement {name!r} holds another grid; rerun with the thresholds and "
                                 "resolution it was made with, or delete the group 'refine'")
            return f, f[key]
        group = f.require_group(REFINE_GROUP).create_group(name)
        _populate(group, run)
        append_provenance(group, provenance_record("refine"))
        return f, group
    except BaseException:
        f.close()
        raise


def read_refinements(path, names=()) -> list:
    """The refinement rounds of a sweep file in order: per round its grid coordinates (the one axis) and the
    datasets ``names`` it holds (``done`` always)."""
    out = []
    with reading(path) as f:
        if REFINE_GROUP not in f:
            return out
        for name in sorted(f[REFINE_GROUP]):
            group = f[REFINE_GROUP][name]
            axis = json.loads(group.attrs["axes"])[0]
            arrays = {n: group[n][...] for n in ("done",) + tuple(names) if n in group}
            out.append({"round": name, "axis": axis, "values": group[axis][...], "arrays": arrays,
                        "evidence_keys": tuple(json.loads(group.attrs["evidence_keys"]))})
    return out


def open_sweep(path, run) -> h5py.File:
    """Reopen an existing sweep file of ``run`` for resuming; StoreError if it belongs to another spec."""
    path = os.fspath(path)
    if not os.access(path, os.W_OK):
        raise StoreError(f"output {path!r} exists but is not writable; cannot resume")
    state = sweep_state(path)
    if state["kind"] != SWEEP_KIND:
        raise StoreError(f"output {path!r} exists and is not a sweep file (kind = {state['kind']!r}); choose "
                         "another path or overwrite it (--force)")
    differ = differences(state, run)
    if differ:
        raise StoreError(f"output {path!r} holds a sweep with another run spec (differs in {differ}); refusing "
                         "to mix results: choose another output path or overwrite it (--force)")
    try:
        return h5py.File(path, "r+")
    except OSError as exc:
        held = " (another program has it open: HDF5's file lock)" if "lock" in str(exc) else ""
        raise StoreError(f"output {path!r} cannot be opened for writing: {reason(exc)}{held}") from None


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


def write_points(f: h5py.Group, run, indices, arrays: dict) -> None:
    """Write per-point ``arrays`` (point on axis 0, in the order of ``indices``) then set the done flags; ``f``
    is a sweep file or a refinement group (:func:`open_refinement`)."""
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
    f.file.flush()
    for _, region in regions:
        f["done"][region] = 1
    f.file.flush()


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
    with reading(path) as f:
        done = f["done"][...]
        axes = {name: (float(f[name][0]), float(f[name][-1]), len(f[name])) for name in attrs["axes"]}
    return {"attrs": attrs, "done": int(done.sum()), "total": int(done.size), "axes": axes,
            "datasets": datasets(path)}


def datasets(path) -> dict:
    """Shape and dtype of every top-level dataset of a result file: name -> (shape, dtype name)."""
    with reading(path) as f:
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
    with reading(path) as f:
        coords = {name: f[name][...] for name in axes}
        arrays = {name: f[name][...] for name in names if name in f}
    return SweepData(path, attrs, axes, coords, arrays)


def write_analysis(path, label: np.ndarray, period: np.ndarray, attrs: dict) -> None:
    """(Re)write the ``analysis`` group of a sweep file (docs/storage.md §4): ``label`` (codes into the JSON list
    ``attrs["labels"]``, CF flags) and ``period`` over the grid axes, and the group attributes ``attrs``. Holds
    the file's writer lock (:mod:`.lock`) meanwhile: :class:`~meanfield.sweeps.lock.FileBusy` while a sweep
    writes it."""
    with writer_lock(path, "meanfield analyze"):
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
