"""Attractors continued along one parameter: a census at every value, seeded by the previous value's attractors,
with identities matched across values (docs/attractors.md §3).

Two stages, so that the expensive one runs in parallel (a sweep's workers, docs/attractors.md §6):

1. **Fresh censuses**: at every value, the same fresh starts (the sampler's starts 0 … n−1: common random
   numbers, so fractions change only because basins do), independently of the other values
   (:func:`~meanfield.find_attractors`).
2. **The chain** (:func:`continue_censuses`), value after value: one start on each attractor present at the
   previous value (its representative's final state) runs at this value. A carried start that lands on an
   attractor of the fresh census adds nothing; one that lands elsewhere adds that attractor with fraction 0
   (its basin has become too small for the fresh starts to hit, or it lives only on this side of a
   hysteresis loop). Only the fresh starts count in the fractions. Ids: this value's attractors take the ids of
   the previous value's by :func:`meanfield.analysis.match_attractors` (W1 between their measures, threshold
   relative to their scale); the others get new ids. Running the values in the opposite order
   (``reverse=True``) follows each attractor from the other side. The starts on a value's *fresh* attractors do
   not depend on the chain, so they run ahead of it, many values per kernel call; only a value after one where
   the chain added an attractor reruns its carried starts (each start has its own lane: the same bits).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import xarray as xr

from ..analysis import LABELS
from ..analysis.basins import tipping_probabilities
from ..analysis.fingerprint import DEFAULT_QUANTILES, Fingerprints, fingerprint
from ..analysis.grouping import CYCLE_RTOL, MATCH_RTOL, MEASURE_RTOL, match_attractors
from ..errors import ConfigError
from ..options import Compute, Lyapunov, check_compute
from ..progress import progress_bar
from ..short_repr import short_repr
from ..systems import as_system
from .attractor import Attractor, identify, label_on_longer_runs, run_attractor
from .find import Census, confirm_starts, fresh_census, labelling_runs
from .options import MAX_PERIOD, Starts, Tolerances, check_tolerances

#: Most carried starts per kernel call when the chain's starts are run ahead of it (:func:`_ahead_of_chain`).
CARRIED_LANES = 256


@short_repr
@dataclass(frozen=True)
class AttractorContinuation:
    """Censuses along ``parameter``: ``values`` in the order computed, ``censuses[v]`` the census at values[v]
    (fractions over the fresh starts; attractors reached only by a carried start have fraction 0), ``ids[v][k]``
    the id of its attractor k."""

    parameter: str
    values: np.ndarray
    censuses: list
    ids: list

    @property
    def n_ids(self) -> int:
        return 1 + max((int(i.max()) for i in self.ids if i.size), default=-1)

    def fractions(self) -> np.ndarray:
        """(values, ids) basin fraction of every id at every value; NaN where the id is absent."""
        out = np.full((len(self.values), self.n_ids), np.nan)
        for v, (census, ids) in enumerate(zip(self.censuses, self.ids)):
            out[v, ids] = [a.fraction for a in census.attractors]
        return out

    def tipping(self) -> np.ndarray:
        """(values, ids, ids + 1) tipping probabilities from the previous value of the chain to each value
        (docs/basins.md §4, Kaszás, Feudel & Tél 2019), over the fresh starts (the same at every value):
        ``[v, i, j]`` the fraction of the starts on id i at the previous value that are on id j at value v, the
        last column the fraction that is unsettled there; NaN at the first value and for ids without a start
        at the previous value."""
        n = max(self.n_ids, 1)
        out = np.full((len(self.values), n, n + 1), np.nan)
        matched = [np.append(ids, -1)[np.where(c.assignment >= 0, c.assignment, ids.size)]      # -1 stays -1
                   for c, ids in zip(self.censuses, self.ids)]
        for v in range(1, len(self.values)):
            matrix, before, after = tipping_probabilities(matched[v - 1], matched[v])
            columns = np.where(after >= 0, after, n)
            for row, i in zip(matrix, before):
                if i >= 0:
                    out[v, i] = 0.0
                    out[v, i, columns] = row
        return out

    def events(self) -> list[tuple]:
        """(value, id, "appears" | "vanishes", label, period) in the order the values were computed."""
        return attractor_events(self.to_dataset(), order=self.values)

    def to_dataset(self, max_period: int | None = None) -> xr.Dataset:
        """The continuation as an ``xarray.Dataset`` over (``parameter``, ``attractor``) in increasing parameter
        order — the form a sweep stores (docs/storage.md §7): ``fraction``, ``fraction_stderr`` (NaN where an id
        is absent), ``label`` (codes into ``label_names``, -1 absent), ``period`` (0 aperiodic, -1 absent),
        ``scale``, ``summary`` (quantile, feature), ``points`` (cycle_point, feature; NaN-padded to
        ``max_period``, default the longest cycle), ``lyapunov`` (exponent) when computed, and ``unsettled``
        (the fraction of fresh starts settled on no attractor) per value."""
        order = np.argsort(self.values, kind="stable")
        n_v, n_a = len(self.values), max(self.n_ids, 1)
        cycles = [a.period for c in self.censuses for a in c.attractors]
        width = max(max_period or 0, max(cycles, default=1), 1)
        q, m = _summary_shape(self.censuses)
        k = next((a.lyapunov.size for c in self.censuses for a in c.attractors if a.lyapunov is not None), 0)
        fraction, stderr, scale = (np.full((n_v, n_a), np.nan) for _ in range(3))
        label, period = np.full((n_v, n_a), -1, np.int8), np.full((n_v, n_a), -1, np.int32)
        summary, points = np.full((n_v, n_a, q, m), np.nan), np.full((n_v, n_a, width, m), np.nan)
        lyapunov = np.full((n_v, n_a, k), np.nan)
        unsettled = np.empty(n_v)
        for row, v in enumerate(order):
            census = self.censuses[v]
            unsettled[row] = census.unsettled_fraction
            for a, i in zip(census.attractors, self.ids[v]):
                fraction[row, i], stderr[row, i], scale[row, i] = a.fraction, a.fraction_stderr, a.scale
                label[row, i], period[row, i] = LABELS.index(a.label), a.period
                summary[row, i] = a.summary
                if a.period > 0:
                    points[row, i, :a.period] = a.points
                if a.lyapunov is not None:
                    lyapunov[row, i] = a.lyapunov
        dims = (self.parameter, "attractor")
        tipping = self.tipping()[order]
        data = {"tipping": (dims + ("destination",), tipping[..., :n_a]),
                "tipping_unsettled": (dims, tipping[..., n_a]), "fraction": (dims, fraction),
                "fraction_stderr": (dims, stderr), "label": (dims, label),
                "period": (dims, period), "scale": (dims, scale),
                "summary": (dims + ("quantile", "feature"), summary),
                "points": (dims + ("cycle_point", "feature"), points), "unsettled": ((self.parameter,), unsettled)}
        if k:
            data["lyapunov"] = (dims + ("exponent",), lyapunov)
        coords = {self.parameter: np.asarray(self.values)[order], "attractor": np.arange(n_a),
                  "quantile": (np.arange(q) + 0.5) / q, "feature": np.arange(m), "cycle_point": np.arange(width),
                  "destination": np.arange(n_a)}
        if k:
            coords["exponent"] = np.arange(k)
        return xr.Dataset(data, coords=coords,
                          attrs={"label_names": " ".join(LABELS),
                                 "direction": "down" if self.values[0] > self.values[-1] else "up"})


def _periodic(census: Census) -> np.ndarray:
    """Which attractors of ``census`` are cycles (ids continue only within a kind, docs/attractors.md §3)."""
    return np.array([a.period > 0 for a in census.attractors])


def _summary_shape(censuses) -> tuple:
    for census in censuses:
        for a in census.attractors:
            return a.summary.shape
    return DEFAULT_QUANTILES, 1


def attractor_events(ds: xr.Dataset, order=None) -> list[tuple]:
    """Where attractor ids appear and vanish in a continuation dataset
    (:meth:`~meanfield.census.continuation.AttractorContinuation.to_dataset`, or a sweep file's ``attractors/up`` group
    read with xarray): (value, id, "appears" | "vanishes", label, period), following the values in ``order`` (default:
    the order they were continued in, the dataset's ``direction``)."""
    if not isinstance(ds, xr.Dataset) or "fraction" not in ds or "label_names" not in ds.attrs:
        raise ConfigError(f"ds = {type(ds).__name__} is not allowed: must be a continuation dataset (fraction, label, "
                          "period over (value, attractor))")
    axis = ds["fraction"].dims[0]
    if order is None:
        order = ds[axis].values[::-1] if ds.attrs.get("direction") == "down" else ds[axis].values
    values = np.asarray(order, dtype=float)
    ds = ds.sel({axis: values})
    present = ds["label"].values >= 0
    names = ds.attrs["label_names"].split()
    found = []
    for v in range(1, len(values)):
        for i in np.flatnonzero(present[v] != present[v - 1]):
            side = v if present[v, i] else v - 1
            found.append((float(values[v]), int(i), "appears" if present[v, i] else "vanishes",
                          names[int(ds["label"].values[side, i])], int(ds["period"].values[side, i])))
    return found


@dataclass(frozen=True)
class _Carried:
    """Where carried starts went: their fingerprints (one row per start) and the lanes of ``batch`` that ran them."""

    prints: Fingerprints
    batch: object
    lanes: np.ndarray


def _run_carried(system, parameter: str, values, starts: list, steps: int, transient: int, *, backend,
                 max_period: int) -> list:
    """Run the states ``starts[v]`` at ``values[v]`` (every other parameter from ``system``), all in one kernel
    call; a :class:`_Carried` per value. Every start runs on its own lane, so its outcome is the same bits as
    in a call of its own."""
    counts = [len(group) for group in starts]
    edges = np.cumsum([0] + counts)
    if not edges[-1]:
        return [None] * len(starts)
    batch = system.run([state for group in starts for state in group], steps, transient,
                       values={parameter: np.repeat(np.asarray(values, dtype=float), counts)}, series=False,
                       compute=Compute(backend=backend))
    prints = fingerprint(batch.states, max_period=max_period, n_quantiles=DEFAULT_QUANTILES)
    return [_Carried(prints.take(np.arange(a, b)), batch, np.arange(a, b)) for a, b in zip(edges[:-1], edges[1:])]


def _ahead_of_chain(values, censuses: list, run) -> Iterator[tuple]:
    """(v, outcome) for v = 1, 2, …: the starts on the fresh attractors of value v − 1 run at value v by ``run``
    (:func:`_run_carried` with its options bound), in calls of at most :data:`CARRIED_LANES` starts, each made
    when the chain reaches its first value. They do not depend on the chain, so they need not wait for it."""
    v = 1
    while v < len(values):
        block, lanes = [], 0
        while v < len(values) and (not block or lanes + len(censuses[v - 1].attractors) <= CARRIED_LANES):
            block.append(v)
            lanes += len(censuses[v - 1].attractors)
            v += 1
        yield from zip(block, run([values[u] for u in block], [[a.state for a in censuses[u - 1].attractors]
                                                               for u in block]))


def _carried(system, census: Census, previous: list, outcome: _Carried, rtol: tuple, confirm, run_longer,
             max_period: int) -> Census:
    """``census`` extended by the attractors that the starts on ``previous`` (the neighbouring value's attractors,
    run at ``system``: ``outcome``) reach and the census lacks (fraction 0), each confirmed and labelled as the
    fresh census's are (:func:`meanfield.census.find.census_of`) by ``confirm(states)`` (the confirming runs,
    :func:`~meanfield.census.find.confirm_starts` with the run's options bound), and by ``run_longer(states)``
    where that run does not decide (:func:`~meanfield.census.attractor.label_on_longer_runs`); module docstring,
    stage 2."""
    if not previous:
        return census
    prints, batch = outcome.prints, outcome.batch
    found, new = list(census.attractors), []
    for s, lane in enumerate(outcome.lanes):
        if prints.period[s] < 0 or (prints.period[s] == 0 and not prints.stationarity[s] <= rtol[1]):
            continue                                         # unsettled: the attractor is lost, not merged
        if identify(prints.take([s]), found + [_provisional(prints, t) for t, _ in new], rtol)[0] < 0:
            new.append((s, lane))
    confirming = confirm([batch.final_state(int(lane)) for _, lane in new])
    for j, (s, _) in enumerate(new):
        on = fingerprint(confirming.states[j:j + 1], max_period=max_period, n_quantiles=DEFAULT_QUANTILES)
        if identify(on, [_provisional(prints, s)], rtol)[0] < 0:
            continue                                         # a transient: its run went on elsewhere
        found.append(run_attractor(system, confirming, j, on, 0))
    known = len(census.attractors)
    return replace(census, attractors=found[:known] + label_on_longer_runs(system, found[known:], run_longer))


def _provisional(prints: Fingerprints, s: int) -> Attractor:
    """Start ``s`` of ``prints`` as an attractor to identify other starts with (only its identity fields)."""
    period = max(int(prints.period[s]), 0)
    return Attractor(label="unresolved", period=period, fraction=0.0, fraction_stderr=0.0, lyapunov=None,
                     state=None, summary=prints.quantiles[s],
                     points=prints.cycle_points(s) if period > 0 else prints.tails[s], scale=float(prints.scale[s]))


def continue_censuses(model, parameter: str, values, censuses: list, steps: int, transient: int, *,
                      lyapunov=False, max_period: int = MAX_PERIOD, rtol: tuple = (CYCLE_RTOL, MEASURE_RTOL),
                      match_rtol: float = MATCH_RTOL, backend: str = "cpu") -> AttractorContinuation:
    """Stage 2 (module docstring): chain the fresh ``censuses`` (one per value of ``values``, in the order to
    follow) with carried starts and matched ids. ``model`` (a ModelSpec or a system, :mod:`meanfield.systems`) holds
    every other parameter; the run lengths and options are those of the fresh censuses."""
    system = as_system(model)
    chained, ids, previous, next_id = [], [], None, 0
    run = partial(_run_carried, system, parameter, steps=steps, transient=transient, backend=backend,
                  max_period=max_period)
    ahead = _ahead_of_chain(values, censuses, run)
    for v, (value, fresh) in enumerate(zip(values, censuses)):
        at = system.replace(**{parameter: float(value)})
        carried = [] if previous is None else previous.attractors
        outcome = next(ahead)[1] if v else None
        if len(carried) > len(censuses[v - 1].attractors if v else ()):     # the chain added attractors at v − 1
            outcome, = run([value], [[a.state for a in carried]])
        confirm = partial(confirm_starts, at, None, steps=steps, transient=transient, lyapunov=lyapunov,
                          backend=backend)
        run_longer = partial(labelling_runs, at, steps=steps, transient=transient, lyapunov=lyapunov,
                             backend=backend)
        census = _carried(at, fresh, carried, outcome, rtol, confirm, run_longer, max_period)
        current = np.array([a.summary for a in census.attractors])
        if previous is None or not previous.attractors or not census.attractors:
            own = next_id + np.arange(len(census.attractors))
        else:
            own = match_attractors(np.array([a.summary for a in previous.attractors]), ids[-1], current,
                                   next_id=next_id, match_rtol=match_rtol,
                                   kinds=(_periodic(previous), _periodic(census)))
        next_id = max(next_id, int(own.max()) + 1 if own.size else next_id)
        chained.append(census)
        ids.append(np.asarray(own, dtype=np.int64))
        previous = census
    return AttractorContinuation(parameter=parameter, values=np.asarray(values, dtype=float), censuses=chained,
                                 ids=ids)


def continue_attractors(model, along: Mapping[str, Sequence[float]], starts, steps: int, transient: int, *,
                        lyapunov: bool | int | Lyapunov = False, tolerances: Tolerances = Tolerances(),
                        compute: Compute = Compute()) -> AttractorContinuation:
    """A census at every value of one parameter, ``along = {name: values}``, chained along the values in their
    order (module docstring; values in decreasing order follow the attractors down). ``starts`` (an integer n,
    a :class:`~meanfield.census.Starts` drawn afresh at every value, or the same list of states at every value),
    ``lyapunov``, ``tolerances`` and ``compute`` are :func:`~meanfield.find_attractors`'s; ``tolerances.match_rtol``
    decides which attractor continues which. A sweep with an ``[attractors]`` table computes the same on a cluster
    (docs/attractors.md §6). ``model``: a ModelSpec or a Map. The censuses list the cycles of a continuum one by
    one, as a sweep stores them (no families, docs/attractors.md §2). ``compute.progress``: True, one bar over
    the values on stderr; None, each value's batch shows its own when it is large
    (:func:`meanfield.simulate_batch`); False, none."""
    system = as_system(model)
    if not isinstance(along, Mapping) or len(along) != 1:
        raise ConfigError(f"along = {along!r} is not allowed: must be {{name: values}} of one parameter")
    (parameter, values), = along.items()
    system.index(parameter)
    try:
        values = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ConfigError(f"values = {values!r} is not allowed: must be one or more finite numbers") from None
    if values.size < 1 or not np.all(np.isfinite(values)):
        raise ConfigError(f"values = {values!r} is not allowed: must be one or more finite numbers")
    tolerances, compute = check_tolerances(tolerances), check_compute(compute, "continue_attractors")
    tolerances.check_run(steps, transient)
    starts = Starts.of(starts)
    options = dict(lyapunov=lyapunov, max_period=tolerances.max_period, rtol=tolerances.rtol,
                   backend=compute.backend)
    progress, fresh = compute.progress, []
    with progress_bar(values.size, "continue_attractors", enabled=bool(progress), unit="value") as bar:
        for value in values:
            at = system.replace(**{parameter: float(value)})
            starts_at = starts.draw(at) if isinstance(starts, Starts) else starts
            fresh.append(fresh_census(at, starts_at, steps, transient, chunk=compute.chunk or len(starts_at),
                                      counted=len(starts_at), progress=False if progress else progress, **options))
            bar.update(1)
    return continue_censuses(system, parameter, values, fresh, steps, transient, match_rtol=tolerances.match_rtol,
                             **options)


__all__ = ["AttractorContinuation", "attractor_events", "continue_attractors", "continue_censuses",
           "Census"]
