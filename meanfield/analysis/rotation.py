"""The rotation number of an orbit on an invariant circle of the stroboscopic map (docs/classification.md §4).

A map forced with period q (the attention model: q = L, its positional encoding's cycle) is studied through
its q-step map F^q, whose attractor past a Neimark–Sacker bifurcation is an invariant circle. The orbit's points
taken every q samples, ``s_k = x_{kq}``, turn around that circle at an average angle per q-step map, the rotation
number ρ (turns per q samples): ρ = arg(μ)/2π at the Neimark–Sacker point, μ the critical Floquet multiplier of
the cycle the circle grows from, and ρ = p/k on an orbit locked in an Arnold tongue (a cycle of F^q with k
points, visited p turns at a time).

Measured here without knowing the circle: the points ``s_k`` around their mean, projected on the plane of their
two leading principal axes, give angles θ_k; the increments θ_{k+1} − θ_k, each taken within half a turn of
their circular mean (an orientation-preserving circle map advances by less than a turn), are averaged with the
weighted Birkhoff average, which converges faster than any power of the length on a quasi-periodic orbit (Das,
Sander, Saiki, Yorke, "Quantitative quasiperiodicity", Nonlinearity 30, 4111 (2017)). The projection's
orientation is arbitrary, so ρ is reported folded to [0, 1/2] (the convention of arg μ with Im μ ≥ 0); its
standard error is that of the averages of :data:`BLOCKS` consecutive blocks. An orbit that is a cycle of F^q
(:func:`~meanfield.analysis.period.find_cycle` on the points ``s_k``, with k ≥ 2 points) is locked: ρ = p/k exactly,
reported as the pair (p, k) in lowest terms.

A cycle of F^q found by the classifier (its points ``s_0 .. s_{k-1}`` in orbit order, k ≥ 3) lies on an invariant
circle, locked at p/k, exactly when F^q moves every point p places on in the cyclic order of the points around the
circle — a rotation-ordered (Birkhoff) orbit. :func:`locked_rotation` checks this on the order of the points'
angles in the plane of their two leading principal axes and returns (p, k), or None for a cycle that is not one.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd

import numpy as np

from meanfield.analysis._input import as_series
from meanfield.analysis.period import find_cycle
from meanfield.analysis.regularity import weighted_birkhoff_average
from meanfield.analysis.tori import fold
from meanfield.errors import AnalysisError
from meanfield.short_repr import short_repr

#: Consecutive blocks whose averages give the standard error of ρ.
BLOCKS = 8
#: Least number of points of the stroboscopic map (the blocks' averages need a few dozen points each).
MIN_POINTS = 16 * BLOCKS
#: A second principal axis below this fraction of the first: the points lie on a line or a point, not a circle.
FLAT = 1e-9


@short_repr
@dataclass(frozen=True)
class Rotation:
    """What :func:`rotation_number` found: ``number`` ρ in [0, 1/2] (turns per forcing period, folded),
    ``stderr`` its standard error (0 for a locked orbit), ``locked`` (p, k) in lowest terms, ρ = p/k folded,
    when the points are a k-cycle of the stroboscopic map (else None), ``points`` the number of stroboscopic
    points measured."""

    number: float
    stderr: float
    locked: tuple[int, int] | None
    points: int


def _locked(p: int, k: int, points: int) -> Rotation:
    """The rotation of an orbit locked at p/k turns, folded to [0, 1/2] and in lowest terms."""
    p = min(p % k, k - p % k)
    common = gcd(p, k)
    return Rotation(p / k, 0.0, (p // common, k // common), points)


def rotation_number(x, forcing_period: int | None = None) -> Rotation:
    """The rotation number of an orbit on an invariant circle of its ``forcing_period``-step map (module docstring).

    Parameters
    ----------
    x : array_like, shape (time,) or (time, features), or ~meanfield.simulation.Trajectory
        A finite series after its transient (for the attention model, a trajectory's recorded attention rows;
        its forcing period is then the default), at least ``MIN_POINTS · forcing_period`` samples. A 1-D
        series is one coordinate of the circle and needs a second: pass the circle's points, e.g.
        (cos 2πθ, sin 2πθ) of a circle map.
    forcing_period : int, optional
        The forcing's period q in samples (default: a trajectory's own, else 1: an autonomous map).

    Returns
    -------
    Rotation
    """
    if hasattr(x, "att") and hasattr(x, "forcing_period"):
        if x.att is None:
            raise AnalysisError("the trajectory recorded no attention rows (record 'att')")
        forcing_period = x.forcing_period if forcing_period is None else forcing_period
        x = x.att
    forcing_period = 1 if forcing_period is None else forcing_period
    q = int(forcing_period)
    if q < 1 or q != forcing_period:
        raise AnalysisError(f"forcing_period = {forcing_period!r} is not allowed: must be a positive integer")
    series = as_series(x, name="x", min_length=MIN_POINTS * q, ndim=(1, 2))
    points = series.reshape(series.shape[0], -1)[::q]
    n = points.shape[0]
    cycle = find_cycle(points, max_period=n // 4)
    if cycle.period in (1, 2):            # a fixed point or a 2-cycle of the q-step map: 0 or half a turn
        return _locked(int(cycle.period) - 1, 2, n)
    steps = _angle_steps(points)
    turns = float(weighted_birkhoff_average(steps)) / (2 * np.pi)
    if cycle.period is not None:
        k = int(cycle.period)
        return _locked(round(turns * k) % k, k, n)
    blocks = [float(weighted_birkhoff_average(b)) / (2 * np.pi) for b in np.array_split(steps, BLOCKS)]
    return Rotation(float(fold(turns)), float(np.std(blocks, ddof=1) / np.sqrt(BLOCKS)), None, n)


def locked_rotation(points: np.ndarray) -> tuple[int, int] | None:
    """(p, k), p/k folded to [0, 1/2] in lowest terms, when the k ≥ 3 points of a cycle of the stroboscopic map, in
    orbit order (k, features), turn in cyclic order by p places per step (module docstring); else None (fewer
    than three points, points on a line, or an orbit that jumps about the circle). The points' projection must go
    round a simple closed curve: a circle that the projection folds over itself is not recognised (None)."""
    k = points.shape[0]
    if k < 3:
        return None
    centred = points - points.mean(axis=0)
    _, sizes, axes = np.linalg.svd(centred, full_matrices=False)
    if sizes.size < 2 or sizes[1] <= FLAT * sizes[0]:
        return None
    plane = centred @ axes[:2].T
    place = np.empty(k, dtype=np.int64)
    place[np.argsort(np.arctan2(plane[:, 1], plane[:, 0]), kind="stable")] = np.arange(k)
    shifts = (np.roll(place, -1) - place) % k
    if np.any(shifts != shifts[0]) or gcd(int(shifts[0]), k) != 1:
        return None
    p = int(shifts[0])
    return min(p, k - p), k


def _angle_steps(points: np.ndarray) -> np.ndarray:
    """The angle increments (radians) of ``points`` (time, features) around their mean in the plane of their two
    leading principal axes, each within half a turn of their circular mean."""
    centred = points - points.mean(axis=0)
    _, sizes, axes = np.linalg.svd(centred, full_matrices=False)
    if sizes.size < 2 or sizes[1] <= FLAT * sizes[0]:
        raise AnalysisError("the orbit's points lie on a line, not around a circle: pass both coordinates of it")
    plane = centred @ axes[:2].T
    steps = np.angle(np.exp(1j * np.diff(np.angle(plane[:, 0] + 1j * plane[:, 1]))))
    centre = np.angle(np.exp(1j * steps).sum())
    return centre + np.angle(np.exp(1j * (steps - centre)))
