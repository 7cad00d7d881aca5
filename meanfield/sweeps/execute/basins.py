"""The basin map of a sweep with a ``[basins]`` table (docs/basins.md §7), stage 3 after the points and the
census's chain: the plane's pixel rows in blocks of ``chunk`` rows, one task each (:func:`basin_block`), every
start assigned to the attractors of the point's stored census (:func:`meanfield.census.basins.assign_tails`).

Every start runs on its own kernel lane and is assigned against stored numbers only, so the map does not
depend on the chunking, the number of workers, the completion order or an interruption.
"""
from __future__ import annotations

import numpy as np

from ...census.basins import KnownAttractors, plane_ids
from ..config.runfile import RunSpec


def known_attractors(census: dict) -> KnownAttractors:
    """The attractors of a point's stored census (its ``census_*`` arrays, slots first), ids = slots."""
    slots = np.flatnonzero(census["census_period"] >= 0)
    period = census["census_period"][slots].astype(np.int64)
    return KnownAttractors(period=period, scale=census["census_scale"][slots],
                           quantiles=census["census_summary"][slots],
                           points=[census["census_points"][k, :max(p, 0)] for k, p in zip(slots, period)])


def point_model(run: RunSpec):
    """The model and the parameter values (scalars by name) of the sweep's one grid point."""
    (model, _), = run.model_groups([0])
    return model, {name: float(values[0]) for name, values in run.parameters([0]).items()}


def basin_block(run: RunSpec, first: int, count: int, census: dict) -> dict:
    """The ids of pixel rows ``first`` … ``first + count − 1`` of the run's plane at its grid point, assigned to
    the attractors of ``census`` (the point's stored ``census_*`` arrays): ``{"first", "id"}``."""
    spec = run.basins
    model, values = point_model(run)
    ids = plane_ids(model, spec.plane(model), range(first, first + count), known_attractors(census), spec.steps,
                    spec.transient, values=values, max_period=run.attractors.max_period, rtol=run.attractors.rtol,
                    backend=run.backend)
    return {"first": first, "id": ids.astype(np.int32)}


def blocks(run: RunSpec, pending: np.ndarray) -> list:
    """(first, count) of every block of ``chunk`` rows (aligned, the last one shorter) holding a pending row."""
    rows = run.basins.plane(point_model(run)[0]).shape[0]
    return [(lo, min(run.chunk, rows - lo)) for lo in range(0, rows, run.chunk)
            if np.any((pending >= lo) & (pending < lo + run.chunk))]


__all__ = ["basin_block", "blocks", "known_attractors", "point_model"]
