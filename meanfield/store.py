"""HDF5 storage (h5py): one file per run, named dimensions readable by ``xarray.open_dataset(path,
engine="h5netcdf")``, the model/run spec and provenance in attributes (design.md, Storage)."""
from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess

import h5py
import numpy as np

from .errors import StoreError


def provenance() -> dict:
    """Package version, git commit (when run from a checkout), host and creation time."""
    from . import __version__
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                                timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {"meanfield_version": __version__, "git_commit": commit or "unknown", "host": platform.node(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat()}


def dimension(group: h5py.Group, name: str, values: np.ndarray) -> h5py.Dataset:
    """Create a coordinate dataset ``name`` and mark it as an HDF5 dimension scale."""
    scale = group.create_dataset(name, data=values)
    scale.make_scale(name)
    return scale


def attach(dataset: h5py.Dataset, *scales: h5py.Dataset) -> h5py.Dataset:
    """Label the axes of ``dataset`` with dimension scales, in order."""
    for axis, scale in enumerate(scales):
        dataset.dims[axis].attach_scale(scale)
    return dataset


def open_new(path, overwrite: bool = False) -> h5py.File:
    """Create ``path`` for writing; refuse to replace an existing file unless ``overwrite``."""
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        raise StoreError(f"output {path!r} exists: choose another path or pass overwrite=True (--force)")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
        raise StoreError(f"output {path!r}: directory {directory!r} does not exist or is not writable")
    try:
        return h5py.File(path, "w")
    except OSError as exc:
        raise StoreError(f"output {path!r} cannot be created: {exc}") from None


def write_trajectory(path, trajectory, overwrite: bool = False) -> str:
    """Write a :class:`~meanfield.simulate.Trajectory` with dimensions (step, feature) and, with exponents,
    (exponent); the model spec (JSON) and provenance in attributes."""
    from .model import OBSERVABLES
    with open_new(path, overwrite) as f:
        n_features = trajectory.model.n_features
        rows = next((len(getattr(trajectory, o)) for o in OBSERVABLES if getattr(trajectory, o) is not None), 0)
        step = dimension(f, "step", trajectory.transient + trajectory.record_every * np.arange(rows))
        feature = dimension(f, "feature", np.arange(n_features))
        for name in OBSERVABLES:
            series = getattr(trajectory, name)
            if series is not None:
                attach(f.create_dataset(name, data=series), step, feature)
        if trajectory.lyapunov is not None:
            exponent = dimension(f, "exponent", np.arange(len(trajectory.lyapunov)))
            attach(f.create_dataset("lyapunov", data=trajectory.lyapunov), exponent)
            attach(f.create_dataset("lyapunov_stderr", data=trajectory.lyapunov_stderr), exponent)
        state = trajectory.final_state
        f.create_dataset("final_att", data=state.att)
        f.create_dataset("final_pe", data=state.pe)
        f.attrs["kind"] = "trajectory"
        f.attrs["model"] = trajectory.model.to_json()
        f.attrs.update({"steps": trajectory.steps, "transient": trajectory.transient,
                        "record_every": trajectory.record_every, **provenance()})
    return os.fspath(path)


def read_attrs(path) -> dict:
    """Attributes of a result file (JSON attributes decoded); StoreError when it is not readable."""
    try:
        with h5py.File(path, "r") as f:
            attrs = dict(f.attrs)
    except OSError as exc:
        raise StoreError(f"{path!r} is not a readable HDF5 file: {exc}") from None
    for key, value in attrs.items():
        if isinstance(value, str) and value[:1] in "{[":
            try:
                attrs[key] = json.loads(value)
            except json.JSONDecodeError:
                pass
    return attrs
