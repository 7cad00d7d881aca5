"""Attractor census of the model: ensembles of starts and every attractor they reach at a parameter point.

:mod:`meanfield.systems.starts` draws the ensembles (counter-based seeds), :mod:`.find` runs them through the batched
kernel and groups them with the generic layer (:mod:`meanfield.analysis.fingerprint`,
:mod:`meanfield.analysis.grouping`), :mod:`~meanfield.census.continuation` follows them along a parameter
(:func:`meanfield.continue_attractors`; the chain it and the census sweeps share, ``continuation.continue_censuses``,
is not a second public entry), :mod:`.basins` draws basin maps on a plane of start windows and :mod:`.shock` finds an
attractor's minimal critical shock (docs/basins.md §7–§8).
docs/attractors.md explains the method, its thresholds and its limits.
"""
from ..systems.starts import perturbations, projection_grid, random_tokens, uniform_windows
from .basins import basin_map, plane
from .continuation import attractor_events
from .options import Starts, Tolerances
from .shock import ShockSearch, minimal_critical_shock

__all__ = ["Starts", "Tolerances", "attractor_events", "basin_map", "plane", "ShockSearch", "minimal_critical_shock",
           "uniform_windows", "random_tokens", "perturbations", "projection_grid"]
