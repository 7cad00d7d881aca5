"""Result-file primitives (h5py), docs/storage.md §1, §2 and §5: provenance records, named dimensions,
output checks, disk reservation, atomic creation under a temporary name, lock-free reading, trajectory
files and file attributes."""
from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager

import h5py
import numpy as np

from ...errors import StoreError
from ...model.layout import OBSERVABLES
from .provenance import now
from .provenance import record as provenance_record
from .schema import attrs as cf_attrs

#: Suffix of a file being created: ``OUT.h5.part`` becomes ``OUT.h5`` by an atomic rename (docs/storage.md §5).

PART_SUFFIX = ".part"


def append_provenance(f: h5py.Group, record: dict) -> None:
    """Append one provenance record (:func:`meanfield.sweeps.store.provenance.record`) to the ``provenance`` attribute
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
    the CF attributes ``meta`` (default: :func:`meanfield.sweeps.store.schema.attrs` of ``name``)."""
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


def write_group(f: h5py.File, key: str, ds) -> h5py.Group:
    """(Re)write the group ``key`` of ``f`` from an xarray Dataset, readable again with ``xarray.open_dataset(path,
    group=key, engine="h5netcdf")``: its coordinates as dimension scales (an index 0 .. n-1 for a dimension
    without one), its variables attached to them (strings as UTF-8), the CF attributes of
    :mod:`.schema` with the variables' own on top, the Dataset's attributes and ``complete`` on the group;
    flushed."""
    if key in f:
        del f[key]
    group = f.require_group(key)
    scales = {name: dimension(group, name, ds[name].values, {**cf_attrs(name), **ds[name].attrs})
              for name in ds.coords}
    for name in ds.dims:
        if name not in scales:
            scales[name] = dimension(group, name, np.arange(ds.sizes[name]))
    for name, var in ds.data_vars.items():
        values = var.values
        if values.dtype.kind in "UO":
            values = np.array(values.tolist(), dtype=h5py.string_dtype())
        dataset = attach(group.create_dataset(name, data=values), *(scales[d] for d in var.dims))
        dataset.attrs.update({**cf_attrs(name), **var.attrs})
    group.attrs.update({**ds.attrs, "complete": True})
    f.flush()
    return group


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


#: h5py ``locking`` values a reader tries, in order (docs/storage.md §5): without HDF5's file lock first, so a
#: running sweep's file can be read (its writer only overwrites raw data and sets ``done`` flags after the data,
#: §3); then the settings another handle of this process may hold the file with, because HDF5 refuses a second
#: open whose locking flags differ from the first's (``xarray.open_dataset`` uses h5py's default, None).
READ_LOCKING = (False, None, True, "best-effort")


def open_readonly(path) -> tuple[h5py.File, bool | str | None]:
    """``path`` open read-only with the first of :data:`READ_LOCKING` that HDF5 accepts, and that ``locking``
    value; StoreError (with the first refusal's reason) only when none opens it."""
    path = os.fspath(path)
    refusals = []
    for locking in READ_LOCKING:
        try:
            return h5py.File(path, "r", locking=locking), locking
        except OSError as exc:
            refusals.append(exc)
    raise StoreError(f"{path!r} is not a readable HDF5 file: {reason(refusals[0])}")


@contextmanager
def reading(path):
    """``path`` open read-only (:func:`open_readonly`) for the ``with`` block."""
    f, _ = open_readonly(path)
    with f:
        yield f


def write_trajectory(path, trajectory, overwrite: bool = False, record: dict | None = None) -> str:
    """Write a :class:`~meanfield.simulation.Trajectory` with dimensions (step, feature), (exponent) and the
    final state over (window, feature) and (window, pe_bit); CF attributes on every variable, the model spec
    (JSON), the divergence step and the provenance ``record`` (:func:`meanfield.sweeps.store.provenance.record`) in
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
