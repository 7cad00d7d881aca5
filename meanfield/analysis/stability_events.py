"""The events of a fixed point's stability along its continued branch (:mod:`.fixed_point_branch`,
docs/onset.md §1–§2):

* the **first loss of stability** (max|μ| reaches 1, μ the multipliers of ∂F/∂x) and its kind: a *fold* (a
  turning point of the branch: the tangent's λ component t_λ changes sign; located as the root of t_λ, i.e. the
  extremum of λ), a *branch point* (a real multiplier through +1 while the branch goes on through it and its
  orientation changes sign: another branch crosses, as at a symmetric pitchfork), a *flip* (μ = −1) or a
  *Neimark–Sacker* point (a complex pair);
* the **crossover**: the deepest interior minimum of the margin 1 − max|μ| before that loss where the leading
  multiplier is real and positive — a multiplier that comes close to +1 and turns away, as at an imperfect
  pitchfork (the margin there scales as ε^(2/3) with the imperfection ε and closes at ε = 0);
* the **birth of the mirror** fixed point: from the image of a branch point under a symmetry of the unperturbed
  map (``mirror``), Newton at that λ and continuation towards smaller λ to the mirror branch's turning point, the
  saddle-node where it is born.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from meanfield.analysis.fixed_point_branch import REAL_TOLERANCE, BranchPoint, FixedPointBranch
from meanfield.errors import AnalysisError

#: A mirror point closer than this (weighted norm) to the branch's own point is that point: no mirror.
DISTINCT = 1e-6


@dataclass(frozen=True)
class StabilityLoss:
    """The first loss of stability: ``kind`` ("fold", "branch_point", "flip" or "neimark_sacker"), the parameter
    ``value``, the ``critical`` multiplier (Im ≥ 0), ``rotation_number`` arg μ / 2π of a Neimark–Sacker pair (NaN
    otherwise) and the ``state`` there."""

    kind: str
    value: float
    critical: complex
    rotation_number: float
    state: np.ndarray


@dataclass(frozen=True)
class Crossover:
    """The closest approach of a real multiplier to +1 that turns away: the parameter ``value`` and the
    ``margin`` 1 − max|μ| there."""

    value: float
    margin: float


def _kind(before: BranchPoint, after: BranchPoint, located: BranchPoint) -> str:
    mu = located.multipliers[0]
    if abs(mu.imag) > REAL_TOLERANCE:
        return "neimark_sacker"
    if mu.real < 0:
        return "flip"
    # det(M − I) changes sign, and sign det(∂G/∂x) = sign(t_λ · orientation): one of the two changes
    return "fold" if np.sign(before.tangent[-1]) != np.sign(after.tangent[-1]) else "branch_point"


def _loss(branch: FixedPointBranch, before: BranchPoint, after: BranchPoint) -> StabilityLoss:
    """Locate and name the loss of stability between two consecutive points (module docstring)."""
    if np.sign(before.tangent[-1]) != np.sign(after.tangent[-1]):
        located = branch.root(before, after, lambda p: p.tangent[-1], tangent=True)
    elif before.orientation != after.orientation:                       # through +1 onto a crossing branch
        located = branch.root(before, after, lambda p: _nearest(p.multipliers, 1.0).real - 1.0)
    else:
        located = branch.root(before, after, lambda p: p.margin)
    kind = _kind(before, after, located)
    mu = located.multipliers[0]
    critical = complex(mu.real, abs(mu.imag))
    rotation = float(np.angle(critical) / (2 * np.pi)) if kind == "neimark_sacker" else float("nan")
    return StabilityLoss(kind, located.value, critical, rotation, located.state)


def _nearest(mu: np.ndarray, target: float) -> complex:
    return complex(mu[np.argmin(np.abs(mu - target))])


def stability_along(branch: FixedPointBranch, first: BranchPoint, end: float):
    """Follow the branch from ``first`` (stable) towards ``end`` and return (points, first loss of stability or
    None, crossover or None, continuation evaluations) (module docstring)."""
    points, loss = [], None
    for point in branch.follow(first, end, stop=lambda before, after: after.margin <= 0):
        points.append(point)
    last = points[-1]
    if last.margin <= 0:
        loss = _loss(branch, points[-2], last)
        points = points[:-1]
    elif (last.value - end) * np.sign(first.tangent[-1]) > 0:
        points = points[:-1]
    crossover, dips = None, []
    for left, middle, right in zip(points, points[1:], points[2:]):
        if middle.margin < left.margin and middle.margin <= right.margin and middle.leads_real_positive:
            dips.append(branch.minimum(left, middle, right, lambda p: p.margin))
    dips = [dip for dip in dips if dip.leads_real_positive]
    if dips:
        deepest = min(dips, key=lambda p: p.margin)
        if deepest.margin <= 0 and loss is None:           # a crossing and a recrossing inside one step
            raise AnalysisError(f"stability is lost and regained near λ = {deepest.value:.9g} inside one step; "
                                f"lower max_step")
        crossover = Crossover(deepest.value, deepest.margin)
    return points, loss, crossover


def mirror_birth(branch: FixedPointBranch, points: list[BranchPoint], mirror, end: float,
                 origin: BranchPoint | None = None) -> tuple[float, float]:
    """(λ where the mirror fixed point is born, its max|μ| where found), NaN where none is found (module
    docstring). Newton runs from ``mirror(state)`` of the branch's ``points`` in turn — the 1st, 2nd, 3rd, 5th,
    9th, … and the last, nearest first, since a mirror is born near the crossover — until it finds a fixed point
    distinct from the branch's; that one is continued towards smaller λ, down to ``end``, until its branch turns
    (the saddle-node), located as the extremum of λ. Given the branch's ``origin`` (its first point, at ``end``), a
    mirror branch that reaches ``end`` without turning and is the origin there means the branch was left on the
    way up (a jump no check caught): an AnalysisError."""
    picks = sorted({min(len(points) - 1, 2 ** k - 1) for k in range(len(points).bit_length() + 1)})
    for point in (points[i] for i in picks):
        found = branch.start(mirror(point.state), point.value, -1.0)
        if found is not None and branch.engine.distance(found.z, point.z) >= DISTINCT:
            break
    else:
        return float("nan"), float("nan")
    modulus = float(np.abs(found.multipliers[0]))
    turned = list(branch.follow(found, end, stop=lambda before, after: after.tangent[-1] * before.tangent[-1] <= 0))
    if len(turned) < 2 or turned[-1].tangent[-1] * turned[-2].tangent[-1] > 0:
        if origin is not None:
            back = branch.start(turned[-1].state, origin.value, -1.0)
            if back is not None and branch.engine.distance(back.z, origin.z) < DISTINCT:
                raise AnalysisError(f"the cycle found from the mirror image at λ = {found.value:.9g} continues down "
                                    f"to the branch's own start: the branch was left on the way up")
        return float("nan"), modulus
    return branch.root(turned[-2], turned[-1], lambda p: p.tangent[-1], tangent=True).value, modulus


__all__ = ["Crossover", "StabilityLoss", "mirror_birth", "stability_along"]
