"""Attractor census of the model: ensembles of starts and every attractor they reach at a parameter point.

:mod:`.starts` draws the ensembles (counter-based seeds), :mod:`.find` runs them through the batched kernel and
groups them with the generic layer (:mod:`meanfield.analysis.fingerprint`, :mod:`meanfield.analysis.grouping`),
:mod:`.continuation` follows them along a parameter.
docs/attractors.md explains the method, its thresholds and its limits.
"""
from .continuation import (
    AttractorContinuation,
    attractor_events,
    continue_attractors,
    continue_censuses,
)
from .find import Attractor, Census, find_attractors
from .starts import SAMPLERS, perturbations, projection_grid, random_tokens, sample, start_generator, uniform_windows

__all__ = ["Attractor", "AttractorContinuation", "Census", "attractor_events",
           "continue_attractors", "continue_censuses", "find_attractors",
           "SAMPLERS", "perturbations", "projection_grid", "random_tokens", "sample", "start_generator",
           "uniform_windows"]
