"""The attractor census in a sweep file (docs/storage.md §7, docs/attractors.md §6).

Per grid point the fresh census (stage 1) is part of the sweep's layout (``census_*`` datasets over the
``census_slot`` dimension, :func:`census_layout`), written chunk by chunk like every point. The chained
continuation (stage 2) is written once every point is done, as the group ``attractors/<direction>``
(``up``, and ``down`` for ``direction = "both"``) over the grid axes and ``attractor`` (the matched ids), readable
with ``xarray.open_dataset(path, group="attractors/up", engine="h5netcdf")`` (:func:`open_attractors`).
"""
from __future__ import annotations

import os

import h5py
import numpy as np
import xarray

from .files import open_readonly, write_group
from .schema import renamed

#: Group of a sweep file holding the chained censuses, one subgroup per direction.
ATTRACTORS_GROUP = "attractors"


def census_layout(run) -> dict:
    """The fresh census's per-point datasets: name -> (extra dims, dtype, fill)."""
    out = {"census_count": ((), np.int32, -1), "census_unsettled": ((), np.float64, np.nan),
           "census_assignment": (("start",), np.int32, -1), "census_period": (("census_slot",), np.int32, -1),
           "census_label": (("census_slot",), np.int8, -1), "census_depth": (("census_slot",), np.int16, 0)}
    for name in ("census_fraction", "census_fraction_stderr", "census_scale"):
        out[name] = (("census_slot",), np.float64, np.nan)
    out.update({"census_summary": (("census_slot", "quantile", "feature"), np.float64, np.nan),
                "census_points": (("census_slot", "cycle_point", "feature"), np.float64, np.nan),
                "census_att": (("census_slot", "window", "feature"), np.float64, np.nan),
                "census_pe": (("census_slot", "window", "pe_bit"), np.float64, np.nan)})
    if run.lyapunov:
        out["census_lyapunov"] = (("census_slot", "exponent"), np.float64, np.nan)
    if run.attractors.transients:
        out.update({name: ((), np.float64, np.nan) for name in TRANSIENT_DATASETS})
    return out


#: The chaotic transient of a point's census, with ``[attractors] transients`` (meanfield.census.transients).
TRANSIENT_DATASETS = ("census_transient_share", "census_escape_rate", "census_escape_rate_stderr")


def census_coordinates(run) -> dict:
    from ...analysis.fingerprint import DEFAULT_QUANTILES

    spec = run.attractors
    return {"census_slot": np.arange(spec.max_attractors), "start": np.arange(spec.starts),
            "quantile": (np.arange(DEFAULT_QUANTILES) + 0.5) / DEFAULT_QUANTILES,
            "cycle_point": np.arange(spec.max_period)}


def attractors_done(f: h5py.File, run) -> bool:
    """Whether ``f`` holds the chained censuses of every direction of ``run``'s ``[attractors]`` table."""
    return all(f"{ATTRACTORS_GROUP}/{d}" in f and f[f"{ATTRACTORS_GROUP}/{d}"].attrs.get("complete", False)
               for d in run.attractors.directions)


def write_attractors(f: h5py.File, direction: str, ds: xarray.Dataset) -> None:
    """(Re)write the group ``attractors/<direction>`` from a continuation dataset over the grid axes and
    ``attractor`` (:meth:`meanfield.census.continuation.AttractorContinuation.to_dataset`, lines stacked), flushed, and
    mark it complete."""
    write_group(f, f"{ATTRACTORS_GROUP}/{direction}", ds)


def open_attractors(path, direction: str = "up") -> xarray.Dataset:
    """The chained census of a sweep file (``direction`` ``up`` or ``down``) as an ``xarray.Dataset``, loaded
    into memory (an older file's names mapped to the current ones, ``store.schema.RENAMED``); KeyError naming what
    the file holds when it has none."""
    path = os.fspath(path)
    f, locking = open_readonly(path)
    with f:
        held = sorted(f[ATTRACTORS_GROUP]) if ATTRACTORS_GROUP in f else []
    if direction not in held:
        raise KeyError(f"{path!r} holds no attractor census {direction!r} (it holds {held or 'none'}): run a sweep "
                       "with an [attractors] table")
    with xarray.open_dataset(path, engine="h5netcdf", group=f"{ATTRACTORS_GROUP}/{direction}",
                             driver_kwds={"locking": locking}) as ds:
        return renamed(ds.load())


def census_events(path) -> list[str]:
    """Lines saying where attractors appear and vanish in each stored direction of a 1-D census sweep
    (:func:`meanfield.census.attractor_events`); none for a sweep without a census."""
    from ...census.continuation import attractor_events

    lines = []
    for direction in ("up", "down"):
        try:
            ds = open_attractors(path, direction)
        except KeyError:
            continue
        if ds["fraction"].ndim != 2:
            continue
        axis = ds["fraction"].dims[0]
        lines.append(f"attractors, continued {direction} along {axis} ({ds.sizes['attractor']} ids):")
        for value, i, what, label, period in attractor_events(ds):
            lines.append(f"  {axis} = {value:.6g}: id {i} {what} ({label}{f', period {period}' if period > 0 else ''})")
    return lines
