"""Sweep files, docs/storage.md §3 and §6: the layout allocated in full at creation, the stored run spec,
refinement groups, and opening a sweep for writing."""
from __future__ import annotations

import json
import os

import h5py
import numpy as np

from ...analysis.evidence import EVIDENCE
from ...analysis.reductions import bin_edges
from ...errors import StoreError
from ..config.runfile import RunSpec
from ..config.tables import MODEL_AXES
from .census import census_coordinates, census_layout
from .chunks import compressed, storage
from .files import (
    WRITE_ERRORS,
    append_provenance,
    attach,
    check_output,
    dimension,
    reading,
    reason,
    reserve,
)
from .provenance import now
from .provenance import record as provenance_record
from .schema import RENAMED, stored_name
from .schema import attrs as cf_attrs
from .verify import CHECKED, CHECKSUM, COORDINATE_CRC, value_crc

#: Suffix of a file being created: ``OUT.h5.part`` becomes ``OUT.h5`` by an atomic rename (docs/storage.md §5).

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
    if run.attractors is not None:
        layout.update(census_layout(run))
    if model.pe_bits == 0:
        layout = {k: v for k, v in layout.items() if "pe_bit" not in v[0]}
    layout[CHECKSUM] = ((CHECKED,), np.uint32, 0)     # crc32 per point and dataset (docs/storage.md §8)
    return layout


def checked_names(layout: dict) -> list:
    """The datasets of a sweep ``layout`` that the ``checksum`` dataset covers, in its order."""
    return [name for name in layout if name not in ("done", CHECKSUM)]


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
                 tail_step=run.transient + run.record.every * np.arange(rows - tail, rows),
                 checked=checked_names(sweep_layout(run)))
    if run.attractors is not None:
        extra.update(census_coordinates(run))
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


def _allocate(f: h5py.File, name: str, shape: tuple, dtype, fill, compressed: dict) -> h5py.Dataset:
    """A per-point dataset: chunked and compressed as ``compressed`` (:func:`.chunks.storage`) says, its chunks
    allocated as they are written; or contiguous, allocated and filled now."""
    if compressed:
        return f.create_dataset(name, shape=shape, dtype=dtype, fillvalue=fill, **compressed)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    dcpl.set_fill_time(h5py.h5d.FILL_TIME_ALLOC)
    return f.create_dataset(name, shape=shape, dtype=dtype, fillvalue=fill, dcpl=dcpl)


#: Bound on the HDF5 metadata of one dataset of a sweep file (object header, dimension-scale references and
#: attributes: 1-2 kB measured in these files).
METADATA_NBYTES = 4096


def raw_nbytes(run: RunSpec) -> int:
    """Bytes of ``run``'s sweep file uncompressed, coordinates and a bound on the metadata
    (:data:`METADATA_NBYTES` per dataset) included."""
    return sum(_nbytes(run).values())


def sweep_nbytes(run: RunSpec) -> int:
    """Bytes ``run``'s sweep file takes when it is created: all of :func:`raw_nbytes` for a contiguous file
    (every dataset allocated in full), only the coordinates and metadata for a compressed one (its chunks are
    allocated as they are written, docs/storage.md §3)."""
    parts = _nbytes(run)
    if not compressed(sum(parts.values())):
        return sum(parts.values())
    return parts["coordinates"] + parts["metadata"]


def _nbytes(run: RunSpec) -> dict:
    layout = sweep_layout(run)
    coords = _coordinates(run, layout)
    points = sum(run.n_points * int(np.prod([len(coords[d]) for d in dims])) * np.dtype(dtype).itemsize
                 for dims, dtype, _ in layout.values())
    return {"coordinates": sum(np.asarray(values).nbytes for values in coords.values()),
            "metadata": METADATA_NBYTES * (len(coords) + len(layout) + 2), "points": points}


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
    crcs = {name: value_crc(scale[...]) for name, scale in scales.items()}
    if run.reductions.band_pairs:
        pairs = np.array(run.reductions.band_pairs)
        for name, column in (("pair_plotted", pairs[:, 0]), ("pair_filter", pairs[:, 1])):
            attach(f.create_dataset(name, data=column), scales["pair"]).attrs.update(cf_attrs(name))
    axes = [a.name for a in run.grid_axes]
    nbytes = raw_nbytes(run)
    for name, (dims, dtype, fill) in sweep_layout(run).items():
        extra = tuple(len(coords[d]) for d in dims)
        dataset = attach(_allocate(f, name, run.shape + extra, dtype, fill, storage(run, extra, nbytes)),
                         *(scales[d] for d in axes + list(dims)))
        dataset.attrs.update(cf_attrs(name, observable))
    fixed = {"kind": SWEEP_KIND, "run_name": run.name, "run_toml": run.source, "run_json": run.to_json(),
             "run_key": run.result_key(), "model": stored_model(run), "axes": json.dumps(axes),
             "points_total": run.n_points, "evidence_keys": json.dumps(EVIDENCE)}
    crcs.update({f"@{name}": value_crc(str(value)) for name, value in fixed.items()})
    f.attrs.update({**fixed, "created": now(), COORDINATE_CRC: json.dumps(crcs)})


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


def require_sweep(path: str, state: dict) -> None:
    """StoreError unless the file at ``path`` (its :func:`sweep_state`) is a sweep file."""
    if state["kind"] != SWEEP_KIND:
        raise StoreError(f"output {path!r} exists and is not a sweep file (kind = {state['kind']!r}); choose "
                         "another path or overwrite it (--force)")


def require_same_run(path: str, state: dict, run: RunSpec) -> None:
    """StoreError unless the sweep file at ``path`` (its :func:`sweep_state`) holds results of ``run``."""
    differ = differences(state, run)
    if differ:
        raise StoreError(f"output {path!r} holds a sweep with another run spec (differs in {differ}); refusing "
                         "to mix results: choose another output path or overwrite it (--force)")


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
        upgrade_names(f)
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
    datasets ``names`` it holds (``done`` always; an older file's names read as the current ones,
    ``store.schema.RENAMED``)."""
    out = []
    with reading(path) as f:
        if REFINE_GROUP not in f:
            return out
        for name in sorted(f[REFINE_GROUP]):
            group = f[REFINE_GROUP][name]
            axis = json.loads(group.attrs["axes"])[0]
            stored = {n: stored_name(group, n) for n in ("done",) + tuple(names)}
            arrays = {n: group[held][...] for n, held in stored.items() if held in group}
            out.append({"round": name, "axis": axis, "values": group[axis][...], "arrays": arrays,
                        "evidence_keys": tuple(json.loads(group.attrs["evidence_keys"]))})
    return out


def upgrade_names(f: h5py.File) -> None:
    """Rename, in place, what an older file names otherwise (``store.schema.RENAMED``), so that a sweep resumed or
    refined into it writes and reads the current names: the datasets of the grid and of every refinement round
    (with the names their checksums cover, ``checked``, and that coordinate's crc32), the chained censuses'
    variables and the basin map's attribute; flushed. Nothing changes in a current file."""
    groups = [f] + [f[REFINE_GROUP][name] for name in (f[REFINE_GROUP] if REFINE_GROUP in f else ())]
    for group in groups:
        moved = {old: new for old, new in RENAMED.items() if old in group and new not in group}
        if not moved:
            continue
        for old, new in moved.items():
            group.move(old, new)
        if CHECKED in group:
            names = [n.decode() if isinstance(n, bytes) else str(n) for n in group[CHECKED][...]]
            names = np.array([moved.get(n, n) for n in names], dtype=h5py.string_dtype())
            group[CHECKED][...] = names
            crcs = json.loads(group.attrs.get(COORDINATE_CRC, "{}"))
            if CHECKED in crcs:
                crcs[CHECKED] = value_crc(names)
                group.attrs[COORDINATE_CRC] = json.dumps(crcs)
    chains = [f[f"attractors/{d}"] for d in (f["attractors"] if "attractors" in f else ())]
    for group in chains:
        for old, new in RENAMED.items():
            if old in group and new not in group:
                group.move(old, new)
    if "basins" in f:
        attrs = f["basins"].attrs
        for old, new in RENAMED.items():
            if old in attrs and new not in attrs:
                attrs[new] = attrs[old]
                del attrs[old]
    f.flush()


def open_sweep(path, run) -> h5py.File:
    """Reopen an existing sweep file of ``run`` for resuming; StoreError if it belongs to another spec."""
    path = os.fspath(path)
    if not os.access(path, os.W_OK):
        raise StoreError(f"output {path!r} exists but is not writable; cannot resume")
    state = sweep_state(path)
    require_sweep(path, state)
    require_same_run(path, state, run)
    try:
        f = h5py.File(path, "r+")
    except OSError as exc:
        held = " (another program has it open: HDF5's file lock)" if "lock" in str(exc) else ""
        raise StoreError(f"output {path!r} cannot be opened for writing: {reason(exc)}{held}") from None
    try:
        upgrade_names(f)
    except BaseException:
        f.close()
        raise
    return f

