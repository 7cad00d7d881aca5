"""The figures' one way in: a sweep as an ``xarray.Dataset`` (docs/storage.md), given as a Dataset — such as
:func:`meanfield.sweep_results`, which carries the labels, refinement rounds and transitions decided now — or as
a path, opened with :func:`meanfield.open_run` (labels only when ``meanfield analyze`` stored them). Figures
draw what the Dataset holds and decide nothing."""
from __future__ import annotations

import json
import os

from ..errors import ConfigError, StoreError
from ..sweeps.store import SWEEP_KIND, open_run


def sweep_dataset(source, needs: tuple = ()):
    """The sweep Dataset of ``source`` (a Dataset, or the path of a sweep file), with the variables ``needs``;
    StoreError when a path is not a sweep file, ConfigError naming what is missing otherwise."""
    ds = source if hasattr(source, "data_vars") else open_run(source)
    name = ds.encoding.get("source", source if isinstance(source, (str, os.PathLike)) else "the dataset")
    if ds.attrs.get("kind") != SWEEP_KIND:
        raise StoreError(f"{os.fspath(name)!r} is not a sweep file (kind = {ds.attrs.get('kind')!r}): this needs "
                         "a file written by `meanfield sweep` (a trajectory file is drawn by `meanfield simulate "
                         "--plot`)")
    missing = [n for n in needs if n not in ds]
    if missing == ["label"] or missing == ["label", "period"]:
        raise ConfigError(f"{os.fspath(name)!r} holds no labels: pass meanfield.sweep_results(path), which decides "
                          "them, or run `meanfield analyze` on the file first")
    if missing:
        raise ConfigError(f"{os.fspath(name)!r} holds no {', '.join(missing)}")
    return ds


def sweep_axes(ds) -> list:
    """The grid axes of a sweep Dataset, in order."""
    return json.loads(ds.attrs["axes"])


def sweep_run(ds) -> dict:
    """The run spec a sweep Dataset was computed from (the file's ``run_json``)."""
    return json.loads(ds.attrs["run_json"])


def one_axis(ds) -> tuple:
    """(name, coordinate values) of the one grid axis of a 1-D sweep Dataset; ConfigError otherwise."""
    axes = sweep_axes(ds)
    if len(axes) != 1:
        raise ConfigError(f"this figure needs a 1-D sweep; the file has axes {axes}")
    return axes[0], ds[axes[0]].values


__all__ = ["sweep_dataset", "sweep_axes", "sweep_run", "one_axis"]
