"""A sweep's results as one ``xarray.Dataset``: what the file stores (:func:`meanfield.open_run`) with the labels
decided now (:mod:`.labels`, docs/classification.md), the points of its refinement rounds and the transitions
they bracket (:mod:`.refine`, docs/classification.md §9). The figures draw this Dataset and decide nothing
(:mod:`meanfield.plots`)."""
from __future__ import annotations

import json

import numpy as np

from ...analysis import LABELS, Thresholds
from ...analysis.labels import MISSING, point_classes
from ..store import open_run, read_refinements
from ..store.schema import label_flags
from .labels import decide_points, point_labels, rotations
from .refine import transitions

#: Datasets of a refinement round carried into the Dataset (as ``refined_<name>``, first dimension ``refined``).
REFINED = ("hist", "band_values")


def sweep_results(path, thresholds: Thresholds = Thresholds()):
    """The sweep file ``path`` as an ``xarray.Dataset`` carrying its decisions.

    Besides every stored variable (lazy, as :func:`meanfield.open_run` gives them), it holds ``label`` (codes into
    :data:`meanfield.analysis.LABELS`, CF flags, -1 where not computed) and ``period`` (-1: none) over the grid,
    decided by ``thresholds``, and ``rotation``, the rotation number of a quasi-periodic point's torus or p/k of a
    cycle locked on one, with ``lock_p`` and ``lock_k`` (:func:`~meanfield.sweeps.results.labels.rotations`); the
    attribute ``thresholds`` (JSON). A 1-D sweep
    also holds its refinement rounds' points along the dimension ``refined`` (``refined_value``, ``refined_label``,
    ``refined_period``, ``refined_hist``, ``refined_band_values``) and the transitions between neighbouring points
    of different classes, grid and rounds together, along ``transition`` (``transition_low``, ``transition_high``,
    ``transition_below``, ``transition_above``: the classes either side)."""
    ds = open_run(path)
    axes = json.loads(ds.attrs["axes"])
    codes, periods = point_labels(path, thresholds)
    ds["label"] = (axes, codes, label_flags(LABELS))
    ds["period"] = (axes, periods, {"long_name": "period of the periodic label (-1: none)"})
    rotation, lock_p, lock_k = rotations(ds, codes, periods)
    ds["rotation"] = (axes, rotation, {"long_name": "rotation number of the torus per forcing period, folded to "
                                                    "[0, 1/2]; p/k on a locked cycle (NaN: neither)"})
    ds["lock_p"] = (axes, lock_p, {"long_name": "p of a cycle locked at p/k on an invariant circle (0: not locked)"})
    ds["lock_k"] = (axes, lock_k, {"long_name": "k of a cycle locked at p/k on an invariant circle (0: not locked)"})
    ds.attrs["thresholds"] = json.dumps(thresholds.__dict__, default=str)
    if len(axes) != 1:
        return ds
    values, names = [ds[axes[0]].values], [point_classes(codes, periods)]
    rounds = read_refinements(path, ("evidence",) + REFINED)
    refined = {"value": [], "label": [], "period": [], **{name: [] for name in REFINED}}
    for rnd in rounds:
        round_codes, round_periods = decide_points(rnd["arrays"]["evidence"], thresholds, rnd["evidence_keys"])
        round_codes[~rnd["arrays"]["done"].astype(bool)] = MISSING
        values.append(rnd["values"])
        names.append(point_classes(round_codes, round_periods))
        for key, array in (("value", rnd["values"]), ("label", round_codes), ("period", round_periods),
                           *((name, rnd["arrays"][name]) for name in REFINED)):
            refined[key].append(array)
    if rounds:
        for key, parts in refined.items():
            array = np.concatenate(parts)
            ds[f"refined_{key}"] = (("refined",) + ds[key].dims[1:] if key in REFINED else ("refined",), array)
        ds["refined_label"].attrs.update(label_flags(LABELS))
    found = transitions(np.concatenate(values), np.concatenate(names))
    for field in ("low", "high", "below", "above"):
        ds[f"transition_{field}"] = ("transition", np.array([getattr(t, field) for t in found],
                                                             dtype=float if field in ("low", "high") else str))
    return ds


__all__ = ["sweep_results"]
