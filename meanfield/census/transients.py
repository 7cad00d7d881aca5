"""The chaotic transient of a census (docs/attractors.md §7): starts whose recorded tail is aperiodic but that the
census assigns to a cycle sit, at the end of their run, on a non-attracting chaotic set they later leave. With
``find_attractors(..., transients=H)`` they are followed on for up to H steps more, one census run (``steps``, the
tail recorded) at a time, until their tail repeats (the census's cycle criterion,
:func:`meanfield.analysis.fingerprint`): the share of starts that pass through the set, and its escape rate κ
± SE with the survival curve (:func:`meanfield.analysis.transients.escape_rate`, a run as the time unit,
converted to steps). Transients that end on an aperiodic attractor are not told from it here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.fingerprint import fingerprint
from ..analysis.transients import EscapeRate, escape_rate
from ..errors import AnalysisError
from ..options import Compute
from ..short_repr import short_repr


@short_repr
@dataclass(frozen=True)
class Transient:
    """A census's chaotic transient: ``starts`` (indices) on it at the end of the census run, their ``share`` of
    the counted starts, ``escape`` (per step; None when none left within the ``horizon`` steps followed, rate
    inf when all left within the first census run) and the ``horizon``."""

    starts: np.ndarray
    share: float
    escape: EscapeRate | None
    horizon: int

    def __str__(self) -> str:
        head = f"chaotic transient: {self.share:.1%} of the starts"
        if self.escape is None:
            return f"{head}, none left it within {self.horizon} steps"
        e = self.escape
        if not np.isfinite(e.rate):
            return f"{head}, all left within the first census run (a lifetime too short to measure here)"
        return (f"{head}, escape rate {e.rate:.3g} ± {e.stderr:.2g} per step (mean lifetime {e.lifetime:.3g} steps; "
                f"{e.escaped} of {e.at_risk} left within {self.horizon} steps)")


def transient_starts(census) -> np.ndarray:
    """The starts whose tail is aperiodic and whose attractor is a cycle."""
    periods = np.array([a.period for a in census.attractors] + [0])
    return np.flatnonzero((census.fingerprints.period == 0) & (periods[census.assignment] > 0))


def follow_transients(system, census, final_state, steps: int, transient: int, horizon: int, *, counted: int,
                      max_period: int, backend: str = "cpu") -> Transient | None:
    """The census's chaotic transient (module docstring); ``final_state(i)`` is start i's state at the end of its
    census run; None when no start is on one."""
    starts = transient_starts(census)
    if starts.size == 0:
        return None
    runs = horizon // steps
    arrival = np.full(starts.size, np.inf)
    inside = np.arange(starts.size)
    states = [final_state(int(i)) for i in starts]
    for k in range(1, runs + 1):
        run = system.run(states, steps, transient, series=False, compute=Compute(backend=backend))
        arrived = fingerprint(run.states, max_period=max_period).period > 0
        arrival[inside[arrived]] = k
        inside = inside[~arrived]
        states = [run.final_state(i) for i in np.flatnonzero(~arrived)]
        if not states:
            break
    share = float(np.count_nonzero(starts < counted) / counted)
    try:
        found = escape_rate(arrival, runs)
    except AnalysisError:                                  # none escaped within the horizon
        return Transient(starts, share, None, runs * steps)
    times, fraction = found.survival
    escape = EscapeRate(found.rate / steps, found.stderr / steps, found.lifetime * steps, found.escaped,
                        found.at_risk, (times * steps, fraction))
    return Transient(starts, share, escape, runs * steps)


__all__ = ["Transient", "follow_transients", "transient_starts"]
