"""``find_attractors``: every attractor of one parameter point, with its basin fraction (docs/attractors.md).

Any system takes part (:mod:`meanfield.systems`: the attention model, whose starts run through the batched kernel, one
lane each, recording the attention window's newest row; or a user's :class:`meanfield.Map`). The
starts' recorded tails t = transient .. steps-1 are fingerprinted and grouped by the generic layer
(:func:`meanfield.analysis.fingerprint`, :func:`meanfield.analysis.group_attractors`), with the classifier's
cycle criterion. Every group is then *confirmed* (docs/attractors.md §2): its representative runs on from its final
state (:data:`CONFIRM_TAILS` tails, the last one recorded), and the group is an attractor only if that run is
still on it by the identity rules;
a group whose representative goes on to another group that stays was a transient and merges into it, one
whose representative reaches no such group leaves its starts unsettled (on no attractor). Each attractor is
labelled by the classifier's own decision (:func:`meanfield.analysis.classify.decide`) on the confirming run's
evidence, so the census and ``classify`` of a run from the attractor's state give one answer. Starts left
unsettled that are still closing in on a stable cycle are decided by Newton (:mod:`.unsettled`). Every start runs
on its own kernel lane, so its tail, and hence its attractor, is the same whatever the chunking.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from ..analysis import Thresholds
from ..analysis.fingerprint import DEFAULT_QUANTILES, Fingerprints, fingerprint
from ..analysis.grouping import CYCLE_RTOL, MEASURE_RTOL, Grouping, assign_to_attractors, group_attractors
from ..errors import ConfigError
from ..model.spec import require_int
from ..options import Compute, Lyapunov, check_compute
from ..systems import as_system
from .attractor import label_on_longer_runs, run_attractor
from .families import with_families
from .options import MAX_PERIOD, Starts, Tolerances, check_tolerances
from .transients import Transient, follow_transients
from .unsettled import decide_unsettled

#: The longest cycle a census tells from an aperiodic set unless told otherwise (two fit in a tail of 512).

#: The confirming run of a group's representative: this many tails long, its last tail recorded. Only the k
#: representatives run it (k ≪ starts: a 64-start census of 40 000 steps with two groups runs 16 % more steps),
#: so a transient that outlives the census's own run by nine tails is still caught (chaotic transients of the
#: paper model at β_o = 1.275 last 20 000 to over 100 000 steps past a 40 000-step census, bench/RESULTS.md
#: "One answer per attractor").
CONFIRM_TAILS = 10

#: The labelling run of an attractor whose confirming run's tail leaves the classifier undecided
#: (:func:`.attractor.label_on_longer_runs`): this many tails, all recorded (a torus near a tongue's fold passes its
#: ghost too slowly for one tail of 20 000 steps, bench/RESULTS.md "Censuses near bifurcations").
LABEL_TAILS = 10


#: Attractors listed by ``repr(census)``.
SHOWN = 12


@dataclass(frozen=True, repr=False)
class Census:
    """What :func:`meanfield.find_attractors` found: ``attractors`` by decreasing fraction, ``assignment`` (n,) the
    index into ``attractors`` of each start (−1: unsettled — settled on no attractor: not settled, escaped, or in
    a group that was not confirmed), ``fingerprints`` of every start."""

    attractors: list
    assignment: np.ndarray
    fingerprints: Fingerprints
    #: the chaotic transient that starts pass through (``transients`` steps followed, :mod:`.transients`)
    transient: Transient | None = None

    @property
    def unsettled_fraction(self) -> float:
        """The fraction of the starts that settled on no attractor (``assignment`` −1): not settled within the
        run, escaped to infinity, or in a group that was not confirmed. Not the label ``unresolved``, which an
        attractor gets when the classifier cannot name it (docs/classification.md)."""
        return float(np.mean(self.assignment < 0))

    def __repr__(self) -> str:
        """A line per attractor (the first :data:`SHOWN`), not its arrays: label, period, fraction ± SE, family."""
        lines = [f"Census of {self.assignment.size} starts: {len(self.attractors)} attractors, "
                 f"{self.unsettled_fraction:.1%} unsettled"]
        for i, a in enumerate(self.attractors[:SHOWN]):
            period = f"({a.period})" if a.label == "periodic" else ""
            family = f", family of {a.family}" if a.family else ""
            lines.append(f"  #{i} {a.label}{period}: {a.fraction:.1%} ± {a.fraction_stderr:.1%}{family}")
        if len(self.attractors) > SHOWN:
            lines.append(f"  ... {len(self.attractors) - SHOWN} more (census.attractors)")
        if self.transient is not None:
            lines.append(f"  {self.transient}")
        return "\n".join(lines)


def group_starts(tails: np.ndarray, *, max_period: int = MAX_PERIOD, rtol: tuple = (CYCLE_RTOL, MEASURE_RTOL),
                 thresholds: Thresholds = Thresholds()) -> tuple[Fingerprints, Grouping]:
    """The fingerprints and candidate groups of one point's recorded tails (starts, time, M) of the attention
    row (:func:`meanfield.analysis.group_attractors`), before confirmation."""
    prints = fingerprint(tails, max_period=max_period, thresholds=thresholds, n_quantiles=DEFAULT_QUANTILES)
    return prints, group_attractors(prints, cycle_rtol=rtol[0], measure_rtol=rtol[1])


def confirm_starts(system, values: dict | None, states: list, steps: int, transient: int, *, lyapunov=False,
                   backend: str = "cpu"):
    """The confirming runs (module docstring): ``states`` (the candidate groups' representatives' final states)
    run on at ``values`` (named parameters, one value per state; None: the system's own) for
    :data:`CONFIRM_TAILS` tails of steps − transient, recording the last (the identity and the classifier's
    series) with exponents over it when asked; None when there are no states."""
    if not states:
        return None
    tail = steps - transient
    return system.run(states, CONFIRM_TAILS * tail, (CONFIRM_TAILS - 1) * tail, values=values, lyapunov=lyapunov,
                      compute=Compute(backend=backend))


def labelling_runs(system, states: list, steps: int, transient: int, *, lyapunov=False, backend: str = "cpu"):
    """The longer labelling runs of :func:`.attractor.label_on_longer_runs`: ``states`` (on their attractors) run
    :data:`LABEL_TAILS` tails of steps − transient at the system's own parameters, all recorded, with exponents
    when asked."""
    return system.run(states, LABEL_TAILS * (steps - transient), 0, lyapunov=lyapunov,
                      compute=Compute(backend=backend))


def label_undecided(system, census: Census, steps: int, transient: int, *, lyapunov=False,
                    backend: str = "cpu") -> Census:
    """``census`` with each attractor its confirming run left undecided labelled on :func:`labelling_runs`
    (:func:`.attractor.label_on_longer_runs`)."""
    run_longer = partial(labelling_runs, system, steps=steps, transient=transient, lyapunov=lyapunov,
                         backend=backend)
    return replace(census, attractors=label_on_longer_runs(system, census.attractors, run_longer))


def _destinations(targets: np.ndarray) -> np.ndarray:
    """Where each candidate group goes, from the group its representative's confirming run was identified with
    (``targets``, -1: none): itself when it stayed; the group it went on to when that group stayed (a
    transient, merged); -1 otherwise (unsettled)."""
    stays = targets == np.arange(targets.size)
    return np.array([t if t >= 0 and stays[t] else -1 for t in targets], dtype=np.int64)


def census_of(system, prints: Fingerprints, grouping: Grouping, confirming, lanes, *,
              counted: int | None = None, max_period: int = MAX_PERIOD, rtol: tuple = (CYCLE_RTOL, MEASURE_RTOL),
              thresholds: Thresholds = Thresholds()) -> Census:
    """The census of one point from its candidate groups (:func:`group_starts`) and ``confirming``, the batch in
    which lane ``lanes[k]`` ran group k's representative on (:func:`confirm_starts`; None without groups).
    Only the first
    ``counted`` starts count in the fractions (default: all)."""
    weighed = prints.period.shape[0] if counted is None else counted
    lanes = np.asarray(lanes, dtype=np.int64)
    first = grouping.representative
    targets = np.zeros(0, dtype=np.int64)
    if first.size:
        on = fingerprint(confirming.states[lanes], max_period=max_period, thresholds=thresholds,
                         n_quantiles=DEFAULT_QUANTILES)
        targets = assign_to_attractors(on, grouping.period, prints.scale[first], prints.quantiles[first],
                                       [prints.tails[i, -p:] for i, p in zip(first, grouping.period)],
                                       cycle_rtol=rtol[0], measure_rtol=rtol[1])
    goes = np.append(_destinations(targets), -1)                  # the last entry: where -1 (unsettled) goes
    assignment = goes[np.where(grouping.assignment >= 0, grouping.assignment, goes.size - 1)]
    goes = goes[:-1]
    kept = np.flatnonzero(goes == np.arange(goes.size))
    counts = np.array([np.count_nonzero(assignment[:weighed] == k) for k in kept], dtype=np.int64)
    order = kept[np.lexsort((first[kept], -counts))] if kept.size else kept
    renumber = np.full(goes.size + 1, -1, dtype=np.int64)          # the last entry renumbers -1 to -1
    renumber[order] = np.arange(order.size)
    attractors = [run_attractor(system, confirming, int(lanes[k]), on, k, thresholds=thresholds, starts=weighed,
                                fraction=np.count_nonzero(assignment[:weighed] == k) / weighed) for k in order]
    return Census(attractors=attractors, assignment=renumber[assignment], fingerprints=prints)


def find_attractors(model, starts, steps: int, transient: int, *, lyapunov: bool | int | Lyapunov = False,
                    tolerances: Tolerances = Tolerances(), compute: Compute = Compute(), transients: int = 0) -> Census:
    """Every attractor that ``starts`` reach at ``model``'s parameters, with basin fractions.

    Parameters
    ----------
    model : ModelSpec or Map
        The system (:mod:`meanfield.systems`; a user's map: :class:`meanfield.Map`).
    starts : int, ~meanfield.census.Starts, list of State or list of numpy.ndarray
        Starts drawn from a sampler of the system (:class:`~meanfield.census.Starts`: for the attention model
        uniform windows in [−1, 1] with the checkpoint's positional phase, or random tokens; for a Map uniform in
        its box; an integer n is ``Starts(n)``), or the starts themselves (States, or a Map's arrays).
    steps, transient : int
        Iterations per start; the attention row is recorded (and exponents accumulated) from ``transient`` on.
        The tail steps − transient must hold two periods of the longest cycle (``tolerances.max_period``) and, for
        aperiodic sets, enough samples of the measure (docs/attractors.md §4). Each group's representative
        then runs on for :data:`~meanfield.census.find.CONFIRM_TAILS` tails more (its confirmation, module docstring).
    lyapunov : bool, int or ~meanfield.Lyapunov
        Exponents of the confirming runs (as :func:`meanfield.simulate_batch`), with block standard errors: the
        classifier's decision uses them (docs/classification.md §6).
    tolerances : ~meanfield.census.Tolerances
        The longest cycle told from an aperiodic set and the identity tolerances of cycles and of measures,
        relative to the attractor's scale (:func:`meanfield.analysis.group_attractors`, docs/attractors.md §2).
    compute : ~meanfield.Compute
        The backend, the progress bar and the starts per kernel call (``chunk``, memory; default all of them);
        the result does not depend on the chunk.
    transients : int
        Steps to follow the starts that end their run on a chaotic transient (an aperiodic tail, assigned to a
        cycle) until they reach it: the census's ``transient`` then holds their share and the escape rate
        (:mod:`~meanfield.census.transients`, docs/attractors.md §7); 0 (the default): not followed. The
        attractors are the same either way.

    Returns
    -------
    ~meanfield.census.find.Census
        The cycles that move with the start are one entry per family (:mod:`~meanfield.census.families`).
    """
    tolerances, compute = check_tolerances(tolerances), check_compute(compute, "find_attractors")
    tolerances.check_run(steps, transient)
    horizon = require_int("transients", transients, 0)
    if 0 < horizon < steps:
        raise ConfigError(f"transients = {transients} is not allowed: 0 (off) or at least steps = {steps} (the starts "
                          "are followed one census run at a time)")
    system = as_system(model)
    starts = Starts.of(starts)
    states = starts.draw(system) if isinstance(starts, Starts) else starts
    weighed, backend = len(states), compute.backend
    census = fresh_census(system, states, steps, transient, chunk=compute.chunk or weighed, counted=weighed,
                          progress=compute.progress, lyapunov=lyapunov, max_period=tolerances.max_period,
                          rtol=tolerances.rtol, backend=backend, transients=horizon)
    return with_families(system, census, steps, transient, tolerances.cycle_rtol, backend, weighed)


def fresh_census(system, states: list, steps: int, transient: int, *, chunk: int, counted: int, progress=None,
                 lyapunov=False, max_period: int = MAX_PERIOD, rtol: tuple = (CYCLE_RTOL, MEASURE_RTOL),
                 backend: str = "cpu", transients: int = 0) -> Census:
    """The census of ``states`` (validated options) without the families step, every cycle its own entry, as a
    continuation and a sweep store them: run, group, confirm, label (module docstring), then the starts still
    closing in on a stable cycle decided by Newton (:mod:`.unsettled`), and with ``transients`` steps the
    chaotic transient followed (:mod:`.transients`)."""
    parts = [system.run(states[lo:lo + chunk], steps, transient, series=False,
                        compute=Compute(backend=backend, progress=progress))
             for lo in range(0, len(states), chunk)]
    prints, grouping = group_starts(np.concatenate([p.states for p in parts]), max_period=max_period, rtol=rtol)
    first = grouping.representative
    confirming = confirm_starts(system, None, [parts[i // chunk].final_state(i % chunk) for i in first], steps,
                                transient, lyapunov=lyapunov, backend=backend)
    census = census_of(system, prints, grouping, confirming, np.arange(first.size), counted=counted,
                       max_period=max_period, rtol=rtol)
    confirm = partial(confirm_starts, system, None, steps=steps, transient=transient, lyapunov=lyapunov,
                      backend=backend)
    def final_state(i):
        return parts[i // chunk].final_state(i % chunk)
    census = decide_unsettled(system, census, final_state, confirm, counted=counted, max_period=max_period,
                               rtol=rtol)
    census = label_undecided(system, census, steps, transient, lyapunov=lyapunov, backend=backend)
    if not transients:
        return census
    return replace(census, transient=follow_transients(system, census, final_state, steps, transient, transients,
                                                        counted=counted, max_period=max_period, backend=backend))
