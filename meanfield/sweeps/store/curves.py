"""Two-parameter curves in a sweep file (docs/bifurcations.md §12, docs/storage.md §7): a run file's ``[curves]``
table is computed once every point is done, curve by curve, each finished task's rows kept in the group
``curve_rows`` (one JSON attribute per curve, exact floats) so that a stopped sweep resumes with the curves still
to do; when all are there, the group ``curves`` holds them as one Dataset (:func:`curves_dataset`), readable with
``xarray.open_dataset(path, group="curves", engine="h5netcdf")`` (:func:`open_curves`). A curve study's own file
(``meanfield curves``) holds the same Dataset at its root.
"""
from __future__ import annotations

import json
import os

import h5py
import numpy as np
import xarray

from .files import open_readonly, write_group

#: The groups of a sweep file that hold the finished curves' rows and the curves' Dataset.
ROWS_GROUP, CURVES_GROUP = "curve_rows", "curves"


def stored_rows(f: h5py.File) -> dict:
    """{curve name: row} of the curves the file holds rows of."""
    if ROWS_GROUP not in f:
        return {}
    return {name: json.loads(text) for name, text in f[ROWS_GROUP].attrs.items()}


def write_rows(f: h5py.File, rows: list) -> None:
    """Keep a finished task's rows (one per curve) in the file, flushed."""
    group = f.require_group(ROWS_GROUP)
    for row in rows:
        group.attrs[row["name"]] = json.dumps(row)
    f.flush()


def curves_done(f: h5py.File) -> bool:
    """Whether ``f`` holds the complete ``curves`` group."""
    return CURVES_GROUP in f and bool(f[CURVES_GROUP].attrs.get("complete", False))


def write_curves(f: h5py.File, study) -> None:
    """Write the group ``curves`` from the stored rows of every curve of ``study``."""
    write_group(f, CURVES_GROUP, curves_dataset(study, stored_rows(f)))


def open_curves(path) -> xarray.Dataset:
    """The curves of a sweep file as an ``xarray.Dataset``, loaded into memory; KeyError when it holds none."""
    path = os.fspath(path)
    f, locking = open_readonly(path)
    with f:
        if not curves_done(f):
            raise KeyError(f"{path!r} holds no complete curves: run a sweep with a [curves] table")
    with xarray.open_dataset(path, engine="h5netcdf", group=CURVES_GROUP, driver_kwds={"locking": locking}) as ds:
        return ds.load()


def curves_dataset(study, rows: dict):
    """The curves of ``study`` (a :class:`~meanfield.sweeps.config.curves.CurveStudy`) from their rows
    (:func:`meanfield.sweeps.execute.curves.compute_curve`, by curve name) as one xarray Dataset: dims ``curve``
    (names), ``point`` (padded with NaN to the longest curve), ``parameter`` (the two names) and ``special``;
    variables ``values`` (curve, point, parameter),
    ``length``, ``kind``, ``period``, ``source`` ("curve" or "tongue"), ``coefficient`` (c or l₁ per point,
    docs/bifurcations.md §9), ``criticality`` ("supercritical", "subcritical" or ""), and the codim-2 points
    ``special_curve``, ``special_kind``, ``special_values`` (special, parameter); the study's settings in the
    attributes."""
    names = study.curve_names()
    longest = max(len(rows[n]["values"]) for n in names)
    values = np.full((len(names), longest, 2), np.nan)
    coefficient = np.full((len(names), longest), np.nan)
    criticality = np.full((len(names), longest), "", dtype=object)
    for i, name in enumerate(names):
        k = len(rows[name]["values"])
        values[i, :k] = rows[name]["values"]
        coefficient[i, :k] = rows[name]["coefficient"]
        criticality[i, :k] = rows[name]["criticality"]
    special = [(name, p) for name in names for p in rows[name]["special"]]
    data = {
        "values": (("curve", "point", "parameter"), values),
        "length": (("curve",), np.array([len(rows[n]["values"]) for n in names], dtype=np.int64)),
        "kind": (("curve",), np.array([rows[n]["kind"] for n in names], dtype=str)),
        "period": (("curve",), np.array([rows[n]["period"] for n in names], dtype=np.int64)),
        "source": (("curve",), np.array([rows[n]["source"] for n in names], dtype=str)),
        "coefficient": (("curve", "point"), coefficient),
        "criticality": (("curve", "point"), criticality.astype(str)),
        "special_curve": (("special",), np.array([n for n, _ in special], dtype=str)),
        "special_kind": (("special",), np.array([p["kind"] for _, p in special], dtype=str)),
        "special_values": (("special", "parameter"), np.array([p["values"] for _, p in special],
                                                               dtype=np.float64).reshape(len(special), 2)),
    }
    attrs = {"name": study.name, "interval": list(study.interval), "model": json.dumps(study.model_table),
             "kind": "curves"}
    return xarray.Dataset(data, coords={"curve": names, "parameter": list(study.parameters)}, attrs=attrs)




__all__ = ["curves_dataset", "curves_done", "open_curves", "stored_rows", "write_curves", "write_rows"]
