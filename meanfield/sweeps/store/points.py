"""Reading and writing points of a sweep file (docs/storage.md §3, §4): chunks of points and their done
flags, summaries, the ``analysis`` group, and the whole file as arrays or as an ``xarray.Dataset``."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import h5py
import numpy as np

from ...errors import StoreError
from ...model.spec import ModelSpec
from .chunk_journal import index_record
from .chunks import write_chunks
from .files import WRITE_ERRORS, attach, dimension, open_readonly, read_attrs, reading, reason
from .lock import writer_lock
from .provenance import now
from .schema import attrs as cf_attrs
from .schema import current_name, label_flags, renamed, stored_name
from .sweep import SWEEP_KIND, checked_names, sweep_layout
from .verify import damage, describe, stored_columns

if TYPE_CHECKING:                      # imported where used: xarray is slow to import
    import xarray

#: Suffix of a file being created: ``OUT.h5.part`` becomes ``OUT.h5`` by an atomic rename (docs/storage.md §5).


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
    """Write per-point ``arrays`` (point on axis 0, in the order of ``indices``) and their checksums
    (docs/storage.md §8), then set the done flags; ``f`` is a sweep file or a refinement group
    (:func:`open_refinement`)."""
    indices = np.asarray(indices, dtype=np.int64)
    order = np.argsort(indices, kind="stable")
    indices = indices[order]
    regions = list(_runs(run.shape, indices))
    layout = sweep_layout(run)
    columns = stored_columns(layout, checked_names(layout), arrays, order)
    for name, data in columns.items():              # the checksums last
        for rows, region in regions:
            f[name][region] = data[rows]
    f.file.flush()
    _mark_done(f, regions)


def write_packed(f: h5py.Group, run, indices, packed: dict, journal=None) -> None:
    """Store the compressed chunks a worker packed (:func:`.chunks.pack`: every per-point dataset and the
    checksums of the points ``indices``) as they are and flush them, append where they lie to the ``journal``
    (an index record, :mod:`.chunk_journal`), then set the done flags."""
    try:
        corners = write_chunks(f, packed)
        f.file.flush()
    except WRITE_ERRORS as exc:                    # a compressed file grows as it is written: a full disk
        raise StoreError(f"output {f.file.filename!r} cannot be written: {reason(exc)}") from None
    if journal is not None:
        journal.append_index(index_record(f, run, indices, corners, journal.names))
    mark_done(f, run, indices)


def mark_done(f: h5py.Group, run, indices) -> None:
    """Set the done flags of the points ``indices`` once their data is flushed, and flush them."""
    _mark_done(f, _runs(run.shape, np.sort(np.asarray(indices, dtype=np.int64))))


def _mark_done(f: h5py.Group, regions) -> None:
    """Set the done flags of the ``regions`` (:func:`_runs`) once their data is flushed, and flush them."""
    for _, region in regions:
        f["done"][region] = 1
    f.file.flush()


def read_points(f: h5py.File, names, indices) -> dict:
    """Per-point datasets ``names`` at flat ``indices`` (in that order), point on axis 0; names the file does
    not hold are left out (an older file's names are read as the current ones, ``store.schema.RENAMED``)."""
    indices = np.asarray(indices, dtype=np.int64)
    coords = np.unravel_index(indices, tuple(f["done"].shape))
    stored = {name: stored_name(f, name) for name in names}
    return {name: f[held][...][coords] for name, held in stored.items() if held in f}


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
    """Shape and dtype of every top-level dataset of a result file: name (the current one of an older file's,
    ``store.schema.RENAMED``) -> (shape, dtype name)."""
    with reading(path) as f:
        return {current_name(name): (obj.shape, str(obj.dtype)) for name, obj in f.items()
                if isinstance(obj, h5py.Dataset)}


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
            from ..config.runfile import _to_file_form, load_run
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
    """The datasets ``names`` that a sweep file holds (absent ones are left out; an older file's names are read as
    the current ones, ``store.schema.RENAMED``), with its attributes and axes; StoreError when ``path`` is not a
    readable sweep file."""
    path = os.fspath(path)
    attrs = read_attrs(path)
    if attrs.get("kind") != SWEEP_KIND:
        raise StoreError(f"{path!r} is not a sweep file (kind = {attrs.get('kind')!r}): this needs a file written "
                         "by `meanfield sweep` (a trajectory file is drawn by `meanfield simulate --plot`)")
    axes = list(attrs["axes"])
    with reading(path) as f:
        coords = {name: f[name][...] for name in axes}
        stored = {name: stored_name(f, name) for name in names}
        arrays = {name: f[held][...] for name, held in stored.items() if held in f}
    return SweepData(path, attrs, axes, coords, arrays)


def write_analysis(path, label: np.ndarray, period: np.ndarray, attrs: dict) -> None:
    """(Re)write the ``analysis`` group of a sweep file (docs/storage.md §4): ``label`` (codes into the JSON list
    ``attrs["labels"]``, CF flags) and ``period`` over the grid axes, and the group attributes ``attrs``. Holds
    the file's writer lock (:mod:`.lock`) meanwhile: :class:`~meanfield.sweeps.store.lock.FileBusy` while a sweep
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


def open_run(path: str | os.PathLike) -> xarray.Dataset:
    """A result file as one ``xarray.Dataset`` (lazy, engine h5netcdf; docs/storage.md): every variable with its
    coordinates and CF attributes, and for a classified sweep the ``analysis`` group's ``label`` and
    ``period`` (read into memory; the group's attributes on ``label``); an older file's variables under their
    current names (``store.schema.RENAMED``). Close it before resuming the sweep into the same file. A sweep file's
    checksums are verified first: StoreError naming a damaged dataset (docs/storage.md §8)."""
    import xarray
    path = os.fspath(path)
    f, locking = open_readonly(path)                   # StoreError when not readable
    with f:
        classified = "analysis" in f
        found = damage(f) if f.attrs.get("kind") == SWEEP_KIND else []
    if found:                                          # never hand out damaged values (docs/storage.md §8)
        raise StoreError(describe(path, found) + "; run `meanfield sweep` on it again to repair it")
    # the locking HDF5 accepted: another handle of this process (an open xarray dataset) may hold the file
    same_locking = {"locking": locking}
    dataset = xarray.open_dataset(path, engine="h5netcdf", driver_kwds=same_locking)
    if classified:
        with xarray.open_dataset(path, engine="h5netcdf", group="analysis", driver_kwds=same_locking) as analysis:
            for name in ("label", "period"):
                dataset[name] = analysis[name].load()
            dataset["label"].attrs.update({k: v for k, v in analysis.attrs.items() if k != "labels"})
    return renamed(dataset)
