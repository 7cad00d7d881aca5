"""Distinct attractors among many starts, and the same attractors across neighbouring parameter values.

Arrays in, ids out (docs/attractors.md §2–§3): :func:`group_attractors` turns the :class:`Fingerprints` of
one parameter point's starts into an attractor index per start (-1: unsettled, counted and never merged);
:func:`match_attractors` gives the attractors of one point the ids of the nearest attractors of its neighbour.

Identity rules, all tolerances relative to the attractor's own scale s (its extent):

* **cycles** (a period p was found): same p and point sets within ``cycle_rtol · s`` in the Hausdorff
  distance (max norm over features) — phase-free: the order in which the cycle visits its points is irrelevant,
  so two starts that land on one cycle at different phases are one attractor, while cycles of one period
  with different points (the mirror images of a symmetric map) are distinct;
* **aperiodic sets** (tori, chaos): the largest per-feature Wasserstein-1 distance between their sampled
  invariant measures within ``measure_rtol · s``; a start whose tail disagrees with itself by more than that
  (halves farther apart than the threshold: not settled) is unsettled;
* a tail that is not finite is unsettled.

Groups are formed leader-first in start order (each new group's first start is its representative), so the
result depends only on the fingerprints, never on how the ensemble was chunked. Groups are numbered by
decreasing size, ties by their representative's index.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from meanfield.analysis.fingerprint import FIXED_POINT_EXTENT, Fingerprints, measure_distance
from meanfield.compiled_cache import cached_jit
from meanfield.errors import AnalysisError
from meanfield.short_repr import short_repr

CYCLE_RTOL = 1e-4
"""Point sets of one cycle agree to the period residual (≤ 1e-8 s, :func:`fingerprint`); distinct cycles of a
smooth map differ by a finite fraction of s. 1e-4 leaves four decades on either side."""

MEASURE_RTOL = 0.05
"""W1 threshold for aperiodic sets: two samples of one measure of T draws with correlation time τ differ by
~ σ·(τ/T)^{1/2} ≤ s·(τ/T)^{1/2}/2 (σ ≤ s/2 the spread), ≤ 0.016 s for T ≥ 1000·τ; distinct attractors by their
separation, a finite fraction of s (docs/attractors.md §2 discusses the choice and when it fails)."""

MATCH_RTOL = 0.25
"""Largest W1 distance, relative to the extent of all of a point's attractors together, at which an attractor
continues one of its neighbour's: attractors move continuously with the parameter, by much less than that
extent between grid points of a resolved sweep."""


@short_repr
@dataclass(frozen=True)
class Grouping:
    """Attractors among the starts of one point.

    ``assignment`` (n,) the attractor index of every start (-1: unsettled); ``representative`` (k,) the index
    of each attractor's first start; ``count`` (k,) its number of starts; ``period`` (k,) its period (0:
    aperiodic); ``n_unsettled`` the starts settled on no attractor.
    """

    assignment: np.ndarray
    representative: np.ndarray
    count: np.ndarray
    period: np.ndarray

    @property
    def n_unsettled(self) -> int:
        return int(np.sum(self.assignment < 0))


@cached_jit(nogil=True)
def _hausdorff(points: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Hausdorff distance (max norm over features) between one (p, F) point set and each of (m, q, F)
    candidates: the larger of the two directed distances, each the largest over one set's points of the
    smallest distance to the other's. Maxima and minima of absolute differences only, so the same number
    whatever the loop order; a NaN coordinate makes the distance NaN (never within a tolerance)."""
    out = np.empty(candidates.shape[0])
    for c in range(candidates.shape[0]):
        other = candidates[c]
        out[c] = max(_directed(points, other), _directed(other, points))
    return out


def hausdorff(a: np.ndarray, b: np.ndarray) -> float:
    """Hausdorff distance (max norm over features) between two point sets (p, F) and (q, F)."""
    a, b = (np.ascontiguousarray(x, dtype=np.float64) for x in (a, b))
    return float(max(_directed(a, b), _directed(b, a)))


@cached_jit(nogil=True)
def _directed(a: np.ndarray, b: np.ndarray) -> float:
    """max over the points of ``a`` of the min over the points of ``b`` of max_f |a_f - b_f| (NaN propagates)."""
    largest = 0.0
    for i in range(a.shape[0]):
        smallest = np.inf
        for j in range(b.shape[0]):
            distance = 0.0
            for f in range(a.shape[1]):
                d = abs(a[i, f] - b[j, f])
                if d > distance or d != d:
                    distance = d
            if distance < smallest or distance != distance:
                smallest = distance
        if smallest > largest or smallest != smallest:
            largest = smallest
    return largest


def _leaders(members: np.ndarray, distance, tolerance: np.ndarray) -> list[np.ndarray]:
    """Leader clustering of ``members`` (start indices, ascending): each group takes every remaining member
    within ``tolerance`` of its first; ``distance(i, rest)`` returns the distances of ``rest`` from start i."""
    groups, rest = [], members
    while rest.size:
        leader = rest[0]
        near = distance(leader, rest) <= np.maximum(tolerance[leader], tolerance[rest])
        near[0] = True
        groups.append(rest[near])
        rest = rest[~near]
    return groups


def group_attractors(prints: Fingerprints, *, cycle_rtol: float = CYCLE_RTOL,
                     measure_rtol: float = MEASURE_RTOL) -> Grouping:
    """Group the starts of one parameter point into distinct attractors (rules in the module docstring)."""
    if not isinstance(prints, Fingerprints):
        raise AnalysisError(f"prints = {prints!r} is not allowed: must be the Fingerprints of fingerprint()")
    if not 0 < cycle_rtol < 1 or not 0 < measure_rtol < 1:
        raise AnalysisError(f"cycle_rtol = {cycle_rtol}, measure_rtol = {measure_rtol} are not allowed: "
                            "both must be in (0, 1)")
    period = prints.period
    groups = []
    for p in np.unique(period[period > 0]):
        members = np.flatnonzero(period == p)
        points = prints.tails[:, -p:]
        groups += _leaders(members, lambda i, rest, pts=points: _hausdorff(pts[i], pts[rest]),
                           cycle_rtol * prints.scale)
    settled = np.flatnonzero((period == 0) & (prints.stationarity <= measure_rtol))
    q = prints.quantiles
    groups += _leaders(settled, lambda i, rest: measure_distance(q[i], q[rest]), measure_rtol * prints.scale)
    groups.sort(key=lambda g: (-g.size, g[0]))
    assignment = np.full(period.shape[0], -1, dtype=np.int64)
    for k, g in enumerate(groups):
        assignment[g] = k
    first = np.array([g[0] for g in groups], dtype=np.int64)
    return Grouping(assignment=assignment, representative=first,
                    count=np.array([g.size for g in groups], dtype=np.int64),
                    period=period[first] if first.size else np.zeros(0, np.int64))


def assign_to_attractors(prints: Fingerprints, period: np.ndarray, scale: np.ndarray, quantiles: np.ndarray,
                         points: list, *, cycle_rtol: float = CYCLE_RTOL,
                         measure_rtol: float = MEASURE_RTOL) -> np.ndarray:
    """The first of k known attractors that each start of ``prints`` is identical to, by the rules of
    :func:`group_attractors` (module docstring) applied between the start and the attractor's representative;
    -1 when it is none of them or unsettled. The attractors are given by their ``period`` (k,) (0: aperiodic),
    ``scale`` (k,), ``quantiles`` (k, Q, F) and ``points`` (k cycle point sets (p, F); ignored when aperiodic).
    Used to place starts carried over from a neighbouring parameter value (docs/attractors.md §3)."""
    out = np.full(prints.period.shape[0], -1, dtype=np.int64)
    for s in range(out.size):
        p = int(prints.period[s])
        if p < 0 or (p == 0 and not prints.stationarity[s] <= measure_rtol):
            continue
        for k in range(len(period)):
            if int(period[k]) != p:
                continue
            if p > 0:
                distance = _hausdorff(np.asarray(points[k]), prints.tails[s:s + 1, -p:])[0]
                tolerance = cycle_rtol * max(scale[k], prints.scale[s])
            else:
                distance = measure_distance(quantiles[k], prints.quantiles[s])
                tolerance = measure_rtol * max(scale[k], prints.scale[s])
            if distance <= tolerance:
                out[s] = k
                break
    return out


def match_attractors(previous: np.ndarray, previous_ids: np.ndarray, current: np.ndarray, *, next_id: int,
                     match_rtol: float = MATCH_RTOL, kinds: tuple | None = None) -> np.ndarray:
    """Ids for the attractors of one point, continuing those of its neighbour (docs/attractors.md §3).

    ``previous`` (k, Q, F) and ``current`` (j, Q, F) are quantile summaries
    (:func:`~meanfield.analysis.fingerprint.quantile_summary`) of the neighbour's and this point's attractors,
    ``previous_ids`` (k,) the neighbour's ids. The pairs minimising the total W1 distance (Hungarian assignment,
    ``scipy.optimize.linear_sum_assignment``) keep the neighbour's id when their distance is at most ``match_rtol``
    times the scale of this point's attractors together (the largest per-feature extent of their union; a single
    attractor's own extent can be tiny, e.g. a small cycle far from the origin, and says nothing about how far it moves;
    when that union is one fixed point, whose extent is rounding flicker, its magnitude, at least 1). With ``kinds`` =
    (previous, current) arrays of labels (e.g. periodic vs aperiodic), only attractors of one kind continue each other:
    an id follows a cycle through changes of its period, never into a chaotic set whose measure happens to be near it.
    Every other attractor is new and gets ``next_id``, ``next_id + 1``, … in its order in ``current``. Returns (j,) int
    ids. """
    previous, current = np.asarray(previous, float), np.asarray(current, float)
    if previous.ndim != 3 or current.ndim != 3 or previous.shape[1:] != current.shape[1:]:
        raise AnalysisError(f"summaries of shapes {previous.shape} and {current.shape} are not allowed: must be "
                            "(attractors, quantiles, features) with equal quantiles and features")
    if np.shape(previous_ids) != previous.shape[:1]:
        raise AnalysisError(f"previous_ids of shape {np.shape(previous_ids)} is not allowed: one id per previous "
                            f"attractor, ({previous.shape[0]},)")
    ids = np.full(current.shape[0], -1, dtype=np.int64)
    if previous.shape[0] and current.shape[0]:
        extent = (current.max(axis=(0, 1)) - current.min(axis=(0, 1))).max()
        magnitude = np.abs(current).max()
        # one fixed point: its extent is rounding flicker (as in fingerprint), its magnitude the scale
        scale = extent if extent > FIXED_POINT_EXTENT * magnitude else max(magnitude, 1.0)
        distance = measure_distance(current[:, None], previous[None, :]) / scale
        if kinds is not None:
            distance[np.asarray(kinds[1])[:, None] != np.asarray(kinds[0])[None, :]] = np.inf
        rows, cols = linear_sum_assignment(np.where(distance <= match_rtol, distance, 1e9))
        keep = distance[rows, cols] <= match_rtol
        ids[rows[keep]] = np.asarray(previous_ids)[cols[keep]]
    new = np.flatnonzero(ids < 0)
    ids[new] = next_id + np.arange(new.size)
    return ids
