"""The basin map in a sweep file (docs/storage.md §9, docs/basins.md §7).

A sweep with a ``[basins]`` table writes, once its one point and its census are stored, the group ``basins``:
dimension scales ``u``, ``v`` (the plane's coordinates), ``attractor`` (the census's slots that hold an
attractor), ``window``, ``feature``, ``plane_axis``; variables ``id`` (u, v) (the attractor of each start, −1
unsettled: on no attractor), ``row_done`` (u) (rows written), the attractors' table ``period``, ``label`` (codes
into the attribute ``label_names``), ``fraction`` (the census's basin fraction) and ``map_fraction`` (over the
map, written with ``complete``, with the attribute ``unsettled``), and the plane itself, ``origin`` (window,
feature) and ``direction`` (plane_axis, window, feature). Rows are written block by block as they arrive,
flushed, so an interrupted map keeps them and the next ``meanfield sweep`` of the file computes only the missing
rows. Read it with :func:`open_basins`.
"""
from __future__ import annotations

import os

import h5py
import numpy as np
import xarray

from ...analysis import LABELS
from .files import attach, dimension, open_readonly
from .schema import attrs as cf_attrs
from .schema import renamed

#: Group of a sweep file holding its basin map.
BASINS_GROUP = "basins"


def create_basins(f: h5py.File, plane, census: dict) -> None:
    """Create the group ``basins`` for ``plane`` (:class:`meanfield.census.basins.Plane`), every row pending,
    with the attractors' table from ``census``, the point's stored ``census_*`` arrays (slots first); nothing
    when the group exists (a resumed map)."""
    if BASINS_GROUP in f:
        return
    group = f.create_group(BASINS_GROUP)
    slots = np.flatnonzero(census["census_period"] >= 0)
    window, features = plane.origin.att.shape
    scale = {name: dimension(group, name, values) for name, values in
             (("u", plane.u), ("v", plane.v), ("attractor", slots), ("window", np.arange(window)),
              ("feature", np.arange(features)), ("plane_axis", np.arange(2)))}

    def put(name, data, *dims, **kwargs):
        attach(group.create_dataset(name, data=data, **kwargs), *(scale[d] for d in dims)).attrs.update(cf_attrs(name))

    put("id", np.full(plane.shape, -1, dtype=np.int32), "u", "v", chunks=(1, plane.shape[1]))
    put("row_done", np.zeros(plane.shape[0], dtype=np.int8), "u")
    put("period", census["census_period"][slots], "attractor")
    put("label", census["census_label"][slots], "attractor")
    put("fraction", census["census_fraction"][slots], "attractor")
    put("map_fraction", np.full(slots.size, np.nan), "attractor")
    put("origin", plane.origin.att, "window", "feature")
    put("direction", plane.directions, "plane_axis", "window", "feature")
    group.attrs.update({"label_names": list(LABELS), "complete": False})
    f.flush()


def pending_rows(f: h5py.File) -> np.ndarray:
    """The rows of the basin map not yet written (all of them before :func:`create_basins`)."""
    return np.flatnonzero(f[f"{BASINS_GROUP}/row_done"][...] == 0)


def write_rows(f: h5py.File, first: int, ids: np.ndarray) -> None:
    """Write the ids of rows ``first`` … ``first + len(ids) − 1`` and mark them done, flushed."""
    group = f[BASINS_GROUP]
    group["id"][first:first + len(ids)] = ids
    group["row_done"][first:first + len(ids)] = 1
    f.flush()


def finish_basins(f: h5py.File) -> None:
    """Once every row is written: each attractor's fraction of the map, the fraction of starts on no attractor
    (attribute ``unsettled``), and ``complete``."""
    group = f[BASINS_GROUP]
    ids = group["id"][...]
    group["map_fraction"][...] = [np.mean(ids == k) for k in range(group["attractor"].size)]
    group.attrs.update({"unsettled": float(np.mean(ids < 0)), "complete": True})
    f.flush()


def basins_done(f: h5py.File) -> bool:
    """Whether ``f`` holds a complete basin map."""
    return BASINS_GROUP in f and bool(f[BASINS_GROUP].attrs.get("complete", False))


def open_basins(path) -> xarray.Dataset:
    """The basin map of a sweep file as an ``xarray.Dataset``, loaded into memory (an older file's names mapped to
    the current ones, ``store.schema.RENAMED``); KeyError saying so when the file has none."""
    path = os.fspath(path)
    f, locking = open_readonly(path)
    with f:
        held = BASINS_GROUP in f
    if not held:
        raise KeyError(f"{path!r} holds no basin map: run a sweep with a [basins] table")
    with xarray.open_dataset(path, engine="h5netcdf", group=BASINS_GROUP, driver_kwds={"locking": locking}) as ds:
        return renamed(ds.load())


__all__ = ["BASINS_GROUP", "basins_done", "create_basins", "finish_basins", "open_basins", "pending_rows",
           "write_rows"]
