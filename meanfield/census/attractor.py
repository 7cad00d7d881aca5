"""One attractor of a census (docs/attractors.md §2): the record, the classifier's label of a run on it, the
record built from such a run, and the identity of runs with known attractors — shared by the fresh census
(:mod:`.find`), the chain (:mod:`.continuation`) and the decided unsettled starts (:mod:`.unsettled`)."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..analysis import Thresholds
from ..analysis.classify import decide
from ..analysis.evidence import measure
from ..analysis.grouping import assign_to_attractors
from ..short_repr import short_repr


@short_repr
@dataclass(frozen=True)
class Attractor:
    """One attractor of a census.

    ``label``: the classifier's label (:data:`meanfield.analysis.LABELS`) decided on the confirming run,
    ``unresolved`` when that run does not decide; ``reason``: how it was reached; ``period`` (0 when
    aperiodic); ``fraction`` of all starts and its binomial standard error √(f(1−f)/n); ``lyapunov`` the
    confirming run's exponents (None unless computed); ``state`` the confirming run's final state (a start on
    the attractor: a State of the attention model, a Map's array); ``summary`` the (Q, M) quantiles of the
    confirming run's recorded states (the attention row; its invariant
    measure's marginals, docs/attractors.md §2); ``points`` the cycle's points (period, M), or that run's tail
    when aperiodic; ``scale`` its extent, to which the identity tolerances are relative; ``family`` 0 for an
    isolated attractor, else the number of cycles of a continuum that move with the start, merged into this
    entry (:mod:`.families`: ``points`` then pools theirs).
    """

    label: str
    period: int
    fraction: float
    fraction_stderr: float
    lyapunov: np.ndarray | None
    state: object
    summary: np.ndarray
    points: np.ndarray
    scale: float
    reason: str = ""
    family: int = 0


def label_run(system, series: np.ndarray, exponents, stderr, thresholds: Thresholds = Thresholds()):
    """The classifier's decision (:func:`meanfield.analysis.classify.decide`) on one run's recorded series (the
    attention model's ``mo_se``) and exponents, measured as ``classify`` of that run measures them (feature 1, section
    feature 2, the system's forcing period)."""
    se = None if stderr is None or not np.all(stderr >= 0) else stderr
    return decide(measure(series, exponents, se, 0, 1 % series.shape[1], thresholds, system.forcing_period),
                  thresholds)


def run_attractor(system, run, lane: int, on, k: int, *, fraction: float = 0.0, starts: int = 1,
                  thresholds: Thresholds = Thresholds(), note: str = "") -> Attractor:
    """The attractor lane ``lane`` of ``run`` (a confirming run, its last tail recorded) is on, its fingerprint row
    ``k`` of ``on``: labelled by :func:`label_run` on that run (``note`` added to the reason), its state the run's
    final one, with ``fraction`` of ``starts`` starts and the binomial standard error."""
    exponents = None if run.lyapunov is None else run.lyapunov[lane]
    stderr = None if run.lyapunov_stderr is None else run.lyapunov_stderr[lane]
    decision = label_run(system, run.series[lane], exponents, stderr, thresholds)
    period = max(int(on.period[k]), 0)
    return Attractor(label=decision.label, period=period, fraction=float(fraction),
                     fraction_stderr=float(np.sqrt(fraction * (1 - fraction) / starts)), lyapunov=exponents,
                     state=run.final_state(lane), summary=on.quantiles[k],
                     points=on.cycle_points(k) if period > 0 else on.tails[k], scale=float(on.scale[k]),
                     reason=decision.reason + note)


def label_on_longer_runs(system, attractors: list, run_longer, thresholds: Thresholds = Thresholds()) -> list:
    """``attractors`` with each one that its confirming run left ``unresolved`` (a tail too short for the
    classifier to decide, docs/attractors.md §2: a torus or a cycle passing a ghost slowly) labelled again on a
    longer run from its state: ``run_longer(states)`` (:func:`.find.labelling_runs` with the census's options bound)
    runs them all in one batch, recorded throughout, with exponents when the census computes them. Only the
    label, its reason and the exponents change; the identity (fingerprint, points, summary) stays the confirming
    run's. A label still undecided on the longer run stays ``unresolved``."""
    undecided = [k for k, a in enumerate(attractors) if a.label == "unresolved"]
    if not undecided:
        return attractors
    run = run_longer([attractors[k].state for k in undecided])
    out = list(attractors)
    for lane, k in enumerate(undecided):
        exponents = None if run.lyapunov is None else run.lyapunov[lane]
        stderr = None if run.lyapunov_stderr is None else run.lyapunov_stderr[lane]
        decision = label_run(system, run.series[lane], exponents, stderr, thresholds)
        out[k] = replace(out[k], label=decision.label, lyapunov=exponents,
                         reason=f"{decision.reason}; labelled on {run.series.shape[1]} steps (the confirming "
                                f"run's tail did not decide)")
    return out


def identify(prints, attractors: list, rtol: tuple) -> np.ndarray:
    """The index in ``attractors`` that each start of ``prints`` is identical to (-1: none), by the census's
    identity rules (:func:`meanfield.analysis.grouping.assign_to_attractors`)."""
    if not attractors:
        return np.full(prints.period.shape, -1, dtype=np.int64)
    return assign_to_attractors(prints, np.array([a.period for a in attractors], dtype=np.int64),
                                np.array([a.scale for a in attractors]), np.array([a.summary for a in attractors]),
                                [a.points for a in attractors], cycle_rtol=rtol[0], measure_rtol=rtol[1])


__all__ = ["Attractor", "identify", "label_on_longer_runs", "label_run", "run_attractor"]
