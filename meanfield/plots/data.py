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


def model_caption(model: dict, swept=()) -> str:
    """The model a figure shows, for its title: ``paper model: M = 3, L = 4, γ = 127.017, ε = 0.02``, the
    parameters named in ``swept`` left out (docs/model.md §1). ``model`` is the stored form
    (:meth:`meanfield.model.spec.ModelSpec.to_dict`, a sweep file's ``model`` attribute) with swept values null."""
    from ..model.spec import ModelSpec
    data = json.loads(model) if isinstance(model, str) else dict(model)
    data.update({k: 1.0 for k in ("beta_o", "beta_att", "scaling_att", "scaling_o", "epsilon") if data.get(k) is None})
    if isinstance(data.get("control"), dict):             # a swept gain is null: its default stands in (not shown)
        data["control"] = {k: v for k, v in data["control"].items() if v is not None}
    spec = ModelSpec.from_dict(data)
    parts = [f"M = {spec.n_features}", f"L = {spec.context}"]
    if not {"gamma", "beta_att"} & set(swept):
        parts.append(f"γ = {spec.effective_gamma:.6g}")
    parts += [f"{symbol} = {getattr(spec, key):g}" for key, symbol in (("beta_o", "β_o"), ("epsilon", "ε"))
              if key not in swept]
    return f"{spec.name} model: " + ", ".join(parts)


def sweep_caption(ds) -> str:
    """Title of a sweep's figure: the run's name, its model (:func:`model_caption`) and the recorded steps."""
    run = sweep_run(ds)
    return (f"{run['name']} — {model_caption(ds.attrs['model'], sweep_axes(ds))}\nsteps "
            f"{run['transient']}..{run['steps'] - 1} recorded")


__all__ = ["sweep_dataset", "sweep_axes", "sweep_run", "one_axis", "model_caption", "sweep_caption"]
