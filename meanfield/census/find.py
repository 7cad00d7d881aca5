"""``find_attractors``: every attractor of one parameter point, with its basin fraction (docs/attractors.md).

The starts run through the batched kernel as one batch of points with identical parameters (one start State
each, :func:`meanfield.simulate_batch`), recording the attention window's newest row over the tail
t = transient .. steps-1; the tails are fingerprinted and grouped by the generic layer
(:func:`meanfield.analysis.fingerprint`, :func:`meanfield.analysis.group_attractors`). Every start is
computed on its own kernel lane, so its tail, and hence its attractor, is the same whatever the chunking.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.fingerprint import DEFAULT_QUANTILES, Fingerprints, fingerprint
from ..analysis.grouping import CYCLE_RTOL, MEASURE_RTOL, group_attractors
from ..errors import ConfigError
from ..model.spec import ModelSpec, require_int
from ..model.state import State
from ..simulate import simulate_batch
from .starts import sample

#: The longest cycle a census tells from an aperiodic set unless told otherwise (two fit in a tail of 512).
MAX_PERIOD = 256

#: Lyapunov exponents above this are positive (chaos), at or below it zero or negative (a torus); a finite
#: run's exponents carry errors ~ 1/√(steps − transient), docs/model.md §4.2.
CHAOS_EXPONENT = 1e-3


@dataclass(frozen=True)
class Attractor:
    """One attractor of a census.

    ``label``: fixed_point, periodic, quasi_periodic, chaotic, hyperchaotic, or ``aperiodic`` (no period and no
    exponents computed to tell a torus from chaos); ``period`` (0 when aperiodic); ``fraction`` of all starts
    and its binomial standard error √(f(1−f)/n); ``lyapunov`` the representative start's exponents (None
    unless computed); ``state`` the representative's final state (a start on the attractor); ``summary`` the
    (Q, M) quantiles of the tail of the attention row (its invariant measure's marginals, docs/attractors.md
    §2); ``points`` the cycle's points (period, M), or the representative's tail when aperiodic; ``scale`` the
    representative's extent, to which the identity tolerances are relative.
    """

    label: str
    period: int
    fraction: float
    fraction_stderr: float
    lyapunov: np.ndarray | None
    state: State
    summary: np.ndarray
    points: np.ndarray
    scale: float


@dataclass(frozen=True)
class Census:
    """What :func:`find_attractors` found: ``attractors`` by decreasing fraction, ``assignment`` (n,) the index
    into ``attractors`` of each start (−1: unresolved), ``fingerprints`` of every start."""

    attractors: list
    assignment: np.ndarray
    fingerprints: Fingerprints

    @property
    def unresolved_fraction(self) -> float:
        return float(np.mean(self.assignment < 0))


def attractor_label(period: int, exponents, forcing: int = 1) -> str:
    """Label from the period and, for an aperiodic set, the number of positive exponents. A cycle whose period
    divides the ``forcing`` period (:meth:`ModelSpec.forcing_period`) is a fixed point of the forced map's
    L-step map, as the classifier calls it (docs/classification.md §2)."""
    if period >= 1 and forcing % period == 0:
        return "fixed_point"
    if period > 1:
        return "periodic"
    if exponents is None:
        return "aperiodic"
    positive = int(np.sum(np.asarray(exponents) > CHAOS_EXPONENT))
    return ("quasi_periodic", "chaotic")[positive] if positive < 2 else "hyperchaotic"


def _starts(model: ModelSpec, starts, seed: int) -> list[State]:
    if isinstance(starts, (int, np.integer)) and not isinstance(starts, bool):
        return sample(model, int(starts), seed=seed)
    starts = list(starts)
    if not starts or not all(isinstance(s, State) for s in starts):
        raise ConfigError("starts: need a number of starts or a non-empty list of States")
    return starts


def census_of(model: ModelSpec, tails: np.ndarray, exponents, final_state, *, counted: int | None = None,
              max_period: int = MAX_PERIOD, rtol: tuple = (CYCLE_RTOL, MEASURE_RTOL)) -> Census:
    """The census of one parameter point from its starts' recorded tails (starts, time, M) of the attention
    row, their ``exponents`` (starts, k) or None, and ``final_state(i)``, the final State of start i. Only the
    first ``counted`` starts count in the fractions (default: all)."""
    weighed = tails.shape[0] if counted is None else counted
    prints = fingerprint(tails, max_period=max_period, n_quantiles=DEFAULT_QUANTILES)
    grouping = group_attractors(prints, cycle_rtol=rtol[0], measure_rtol=rtol[1])
    attractors = []
    for k, first in enumerate(grouping.representative):
        period = int(grouping.period[k])
        fraction = np.count_nonzero(grouping.assignment[:weighed] == k) / weighed
        own = None if exponents is None else exponents[first]
        attractors.append(Attractor(
            label=attractor_label(period, own, model.forcing_period()), period=period, fraction=float(fraction),
            fraction_stderr=float(np.sqrt(fraction * (1 - fraction) / weighed)), lyapunov=own,
            state=final_state(int(first)), summary=prints.quantiles[first],
            points=prints.cycle_points(first) if period > 0 else prints.tails[first], scale=float(prints.scale[first])))
    return Census(attractors=attractors, assignment=grouping.assignment, fingerprints=prints)


def run_starts(model: ModelSpec, parameters: dict, starts: list, steps: int, transient: int, *, lyapunov=False,
               backend: str = "cpu", progress: bool | None = None):
    """One batched kernel run of ``starts`` (one lane each) at ``parameters`` (arrays, one value per start),
    recording the attention row over t = transient .. steps-1: returns the :class:`~meanfield.simulate.Batch`."""
    return simulate_batch(model, steps, transient, parameters=parameters, start=starts, lyapunov=lyapunov,
                          record=("att",), backend=backend, progress=progress)


def check_census_lengths(steps: int, transient: int, max_period: int) -> None:
    """ConfigError unless the tail steps − transient holds two periods of ``max_period``."""
    require_int("max_period", max_period, 1)
    if require_int("steps", steps, 1) - require_int("transient", transient, 0) < 2 * max_period:
        raise ConfigError(f"transient = {transient} is not allowed with steps = {steps}: the tail must hold two "
                          f"periods of max_period = {max_period} (steps - transient >= {2 * max_period})")


def find_attractors(model: ModelSpec, starts, steps: int, transient: int, *, lyapunov=False, seed: int = 0,
                    chunk: int | None = None, max_period: int = MAX_PERIOD, rtol: tuple = (CYCLE_RTOL, MEASURE_RTOL),
                    backend: str = "cpu", progress: bool | None = None,
                    counted: int | None = None) -> Census:
    """Every attractor that ``starts`` reach at ``model``'s parameters, with basin fractions.

    Parameters
    ----------
    starts : int or list of State
        A number of starts from the default sampler (uniform windows in [−1, 1], the checkpoint's positional
        phase, seeded by ``seed``; :mod:`meanfield.census.starts`), or the starts themselves.
    steps, transient : int
        Iterations per start; the attention row is recorded (and exponents accumulated) from ``transient`` on.
        The tail steps − transient must hold two periods of the longest cycle (``max_period``) and, for
        aperiodic sets, enough samples of the measure (docs/attractors.md §4).
    lyapunov : bool or int
        Exponents per start (as :func:`simulate_batch`); they only refine aperiodic labels.
    chunk : int, optional
        Starts per kernel call (memory); the result does not depend on it.
    max_period : int
        The longest cycle told from an aperiodic set (:func:`meanfield.analysis.fingerprint`).
    rtol : (float, float)
        The identity tolerances of cycles and of measures, relative to the attractor's scale
        (:func:`meanfield.analysis.group_attractors`, docs/attractors.md §2).
    counted : int, optional
        Only the first ``counted`` starts count in the fractions (the others can add attractors but not basin
        weight; default: all).
    """
    states = _starts(model, starts, require_int("seed", seed, 0))
    n = len(states)
    chunk = n if chunk is None else require_int("chunk", chunk, 1)
    weighed = n if counted is None else require_int("counted", counted, 1)
    if weighed > n:
        raise ConfigError(f"counted = {counted} is not allowed: at most the {n} starts")
    check_census_lengths(steps, transient, max_period)
    parts = [run_starts(model, {"beta_o": np.full(len(states[lo:lo + chunk]), model.beta_o)}, states[lo:lo + chunk],
                        steps, transient, lyapunov=lyapunov, backend=backend, progress=progress)
             for lo in range(0, n, chunk)]
    tails = np.concatenate([p.records["att"] for p in parts])
    exponents = None if parts[0].lyapunov is None else np.concatenate([p.lyapunov for p in parts])
    return census_of(model, tails, exponents, lambda i: parts[i // chunk].final_state(i % chunk), counted=weighed,
                     max_period=max_period, rtol=rtol)
