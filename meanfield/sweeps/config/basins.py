"""The ``[basins]`` table of a run file: a basin map of the attention model on a plane of start windows at the
sweep's one grid point, its starts assigned to the attractors of the point's census (docs/basins.md §7).
Validated like the other tables (:mod:`.tables`): a mistake is a :class:`~meanfield.errors.ConfigError` naming
the key, the value and what is allowed, before any compilation.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...census.basins import Plane, plane
from ...census.options import run_file_tolerances
from ...errors import ConfigError
from ...model.spec import ModelSpec, require_int
from .tables import check_keys


@dataclass(frozen=True)
class BasinSpec:
    """The ``[basins]`` table (docs/basins.md §7): the plane through ``origin`` (``"checkpoint"``: the model's
    checkpoint window, or a window L×M) along two ``features`` of the window (default 0 and 1) or towards two
    ``windows``, ``u`` and ``v`` the ranges of its coordinates, ``resolution`` pixels along each; every pixel
    runs ``steps`` iterations and its attention row over t = ``transient`` … steps − 1 is assigned to the
    census's attractors."""

    steps: int
    transient: int
    origin: object = "checkpoint"
    features: tuple | None = None
    windows: tuple | None = None
    u: tuple = (-1.0, 1.0)
    v: tuple = (-1.0, 1.0)
    resolution: tuple = (512, 512)

    def plane(self, model: ModelSpec) -> Plane:
        """The plane of start windows this table describes, for ``model``."""
        features = (0, 1) if self.features is None else self.features
        return plane(model, origin=None if self.origin == "checkpoint" else self.origin, features=features,
                     windows=self.windows, u=self.u, v=self.v, resolution=self.resolution)


def _frozen(value):
    """Lists (TOML arrays) as tuples, so that the spec is hashable and stored as written."""
    return tuple(_frozen(x) for x in value) if isinstance(value, (list, tuple)) else value


def parse_basins(table, model: ModelSpec) -> BasinSpec:
    """The ``[basins]`` table, checked against ``model`` (its plane is built once here)."""
    table = dict(check_keys(table, tuple(BasinSpec.__dataclass_fields__), "basins"))
    for key in ("steps", "transient"):
        if key not in table:
            raise ConfigError(f"basins: missing required key {key!r}")
        table[key] = require_int(f"basins.{key}", table[key], 0 if key == "transient" else 1)
    resolution = table.get("resolution", BasinSpec.resolution)
    if not isinstance(resolution, (list, tuple)):
        table["resolution"] = (resolution, resolution)
    if "windows" in table and "features" in table:
        raise ConfigError(f"basins.windows = {table['windows']!r} is not allowed together with basins.features: "
                          "the plane is spanned by two features or by two windows")
    origin = table.get("origin", "checkpoint")
    if isinstance(origin, str) and origin != "checkpoint":
        raise ConfigError(f"basins.origin = {origin!r} is not allowed: must be 'checkpoint' or a window")
    spec = BasinSpec(**{key: _frozen(value) for key, value in table.items()})
    try:
        spec.plane(model)
    except ConfigError as exc:
        raise ConfigError(f"basins.{exc}") from None
    return spec


def check_basins_run(run) -> None:
    """Refuse a ``[basins]`` table the sweep cannot map (docs/basins.md §7): it needs the census of an
    ``[attractors]`` table, one grid point, and a recorded tail that holds two periods of ``max_period``."""
    spec = run.basins
    if run.attractors is None:
        raise ConfigError("basins: a [basins] table needs an [attractors] table (the census whose attractors the "
                          "starts are assigned to)")
    if run.n_points != 1:
        raise ConfigError(f"grid = {' x '.join(map(str, run.shape))} points is not allowed with [basins]: the map "
                          "is drawn at one parameter point (give every grid axis one value)")
    try:
        run_file_tolerances(spec.steps, spec.transient, run.attractors.max_period, run.attractors.rtol)
    except ConfigError as exc:
        raise ConfigError(f"basins.{exc}") from None


__all__ = ["BasinSpec", "check_basins_run", "parse_basins"]
