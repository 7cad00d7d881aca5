"""Attractor census of the model: ensembles of starts and every attractor they reach at a parameter point.

:mod:`.starts` draws the ensembles (counter-based seeds), :mod:`.find` runs them through the batched kernel and
groups them with the generic layer (:mod:`meanfield.analysis.fingerprint`, :mod:`meanfield.analysis.grouping`),
:mod:`.continuation` follows them along a parameter (:func:`continue_attractors`; the chain it and the census
sweeps share, ``continuation.continue_censuses``, is not a second public entry),
:mod:`.basins` draws basin maps on a plane of start windows and :mod:`.shock` finds an attractor's minimal
critical shock (docs/basins.md §7–§8).
docs/attractors.md explains the method, its thresholds and its limits.
"""
from .attractor import Attractor
from .basins import KnownAttractors, Plane, basin_map, plane
from .continuation import AttractorContinuation, attractor_events, continue_attractors
from .find import Census, find_attractors
from .options import Starts, Tolerances
from .shock import Shock, ShockSearch, minimal_critical_shock
from .starts import SAMPLERS, perturbations, projection_grid, random_tokens, sample, start_generator, uniform_windows

__all__ = ["Attractor", "AttractorContinuation", "Census", "attractor_events",
           "continue_attractors", "find_attractors", "Starts", "Tolerances",
           "SAMPLERS", "perturbations", "projection_grid", "random_tokens", "sample", "start_generator",
           "uniform_windows", "KnownAttractors", "Plane", "basin_map", "plane", "Shock", "ShockSearch",
           "minimal_critical_shock"]
