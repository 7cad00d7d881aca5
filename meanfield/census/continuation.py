"""Attractors continued along one parameter: a census at every value, seeded by the previous value's attractors,
with identities matched across values (docs/attractors.md §3).

At every value the same fresh starts (the sampler's starts 0 … n−1: common random numbers, so fractions change
only because basins do) run together with one start on each attractor found at the previous value (its
representative's final state). Only the fresh starts count in the basin fractions; the carried starts keep an
attractor whose basin has become too small for the fresh starts to hit (fraction 0, still present) and trace
hysteresis: running the values in the opposite order (``reverse=True``) follows each attractor from the other
side. Ids: the attractors of each value take the ids of the previous value's attractors by
:func:`meanfield.analysis.match_attractors` (W1 between their measures, threshold relative to their scale);
the others get new ids.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.grouping import MATCH_RTOL, match_attractors
from ..errors import ConfigError
from ..model.spec import SCALAR_PARAMETERS, ModelSpec, require_int
from .find import Census, find_attractors
from .starts import sample


@dataclass(frozen=True)
class AttractorContinuation:
    """Censuses along ``parameter``: ``values`` in the order computed, ``censuses[v]`` the census at values[v]
    (fractions over the fresh starts), ``ids[v][k]`` the id of its attractor k."""

    parameter: str
    values: np.ndarray
    censuses: list
    ids: list

    @property
    def n_ids(self) -> int:
        return 1 + max((int(i.max()) for i in self.ids if i.size), default=-1)

    def fractions(self) -> np.ndarray:
        """(values, ids) basin fraction of every id at every value; NaN where the id is absent (an attractor
        present with fraction 0 is reached only from the previous value's attractor)."""
        out = np.full((len(self.values), self.n_ids), np.nan)
        for v, (census, ids) in enumerate(zip(self.censuses, self.ids)):
            out[v, ids] = [a.fraction for a in census.attractors]
        return out

    def events(self) -> list[tuple]:
        """(value, id, "appears" | "vanishes", label, period) where an id starts or stops being present, in the
        order the values were computed."""
        present = ~np.isnan(self.fractions())
        found = []
        for v in range(1, len(self.values)):
            for i in np.flatnonzero(present[v] != present[v - 1]):
                side = v if present[v, i] else v - 1
                attractor = self.censuses[side].attractors[int(np.flatnonzero(self.ids[side] == i)[0])]
                found.append((float(self.values[v]), int(i), "appears" if present[v, i] else "vanishes",
                              attractor.label, attractor.period))
        return found


def continue_attractors(model: ModelSpec, parameter: str, values, starts: int, steps: int, transient: int, *,
                        seed: int = 0, reverse: bool = False, match_rtol: float = MATCH_RTOL,
                        **options) -> AttractorContinuation:
    """Census of ``starts`` fresh starts (and the previous value's attractors) at every value of ``parameter``
    (module docstring). ``options`` go to :func:`find_attractors` (lyapunov, max_period, chunk, tolerances,
    backend, progress)."""
    if parameter not in SCALAR_PARAMETERS:
        raise ConfigError(f"parameter = {parameter!r} is not allowed: must be one of {', '.join(SCALAR_PARAMETERS)}")
    values = np.asarray(values, dtype=float).ravel()
    if values.size < 1 or not np.all(np.isfinite(values)):
        raise ConfigError(f"values = {values!r} is not allowed: must be one or more finite numbers")
    values = values[::-1] if reverse else values
    n = require_int("starts", starts, 1)
    censuses, ids, previous, next_id = [], [], None, 0
    for value in values:
        at = model.replace(**{parameter: float(value)})
        carried = [] if previous is None else [a.state for a in previous.attractors]
        census = find_attractors(at, sample(at, n, seed=seed) + carried, steps, transient, counted=n, **options)
        current = np.array([a.summary for a in census.attractors])
        if previous is None or not previous.attractors or not census.attractors:
            own = next_id + np.arange(len(census.attractors))
        else:
            own = match_attractors(np.array([a.summary for a in previous.attractors]), ids[-1], current,
                                   next_id=next_id, match_rtol=match_rtol)
        next_id = max(next_id, int(own.max()) + 1 if own.size else next_id)
        censuses.append(census)
        ids.append(np.asarray(own, dtype=np.int64))
        previous = census
    return AttractorContinuation(parameter=parameter, values=values, censuses=censuses, ids=ids)


__all__ = ["AttractorContinuation", "continue_attractors", "Census"]
