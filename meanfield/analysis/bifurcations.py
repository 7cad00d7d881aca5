"""Continuation of periodic orbits along one parameter and location of their bifurcations
(docs/bifurcations.md §2–§3).

The branch {(x_0 … x_{p−1}, λ) : G(x, λ) = 0} of the multiple-shooting equations (:mod:`.orbits`) is
followed by pseudo-arclength continuation (Keller 1977; the engine of :mod:`.continuation`, of which
:class:`OrbitBranch` is a problem): from a point z_k with unit tangent t_k, predict
z_k + h·t_k and correct by Newton on [G(z) = 0, ⟨t_k, z − z_k⟩ = h]. The arclength parametrisation passes
folds, where the branch turns back in λ. Arclength is measured in the weighted inner product
⟨a, b⟩ = (1/pn) Σ a_x b_x + a_λ b_λ (the state's pn entries count as their mean square), so that a long orbit
whose every point moves with λ does not force tiny steps in λ; |dλ/ds| ≤ 1 still holds. ∂G/∂λ is a central difference in
λ (step 1e−6·max(1, |λ|)); it only enters the predictor and the corrector's matrix, so it changes how fast Newton
converges, not where the converged points lie (G = 0 is solved to the orbit's tolerance).

At every point of the branch three test functions of the multipliers μ_1 … μ_n are evaluated, each a
symmetric function of the multipliers — a continuous function of the monodromy matrix's entries, so it does
not jump when two real multipliers collide and turn complex:

* fold (μ = +1):            τ_F = Re Π_i (μ_i − 1) / (|μ_i| + 1)
* period doubling (μ = −1):  τ_PD = Re Π_i (μ_i + 1) / (|μ_i| + 1)
* Neimark–Sacker (μ_i μ_j = 1): τ_NS = Re Π_{i<j} (μ_i μ_j − 1) / (|μ_i μ_j| + 1)

(the normalisation keeps each factor of modulus ≤ 1, so no product overflows; it does not change signs).
A sign change between two consecutive branch points brackets a bifurcation, which is then located by Brent's
method on the arclength s ∈ [0, h] of that step (each evaluation a corrected branch point), to ``resolution``
in s and hence in λ (|dλ/ds| ≤ 1). τ_NS also vanishes at a *neutral saddle* (two real multipliers with
μ_i μ_j = 1): such roots are discarded, a Neimark–Sacker point needs the critical pair complex. Every located
period doubling and Neimark–Sacker point carries its critical normal-form coefficient
(:mod:`meanfield.analysis.normal_forms`, docs/bifurcations.md §9), hence whether it is supercritical or subcritical.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq

from meanfield.analysis._input import as_series
from meanfield.analysis.continuation import Continuation
from meanfield.analysis.normal_forms import criticality, normal_form_coefficient
from meanfield.analysis.orbits import (
    TOLERANCE,
    check_period,
    iterate_points,
    multipliers,
    newton_orbit,
    numba_family,
    residuals,
    shooting_matrix,
    solve,
)
from meanfield.errors import AnalysisError
from meanfield.short_repr import short_repr

KINDS = ("fold", "period_doubling", "neimark_sacker")
#: At most this many continuation steps per call (the branch is abandoned beyond it).
MAX_POINTS = 2000


@short_repr
@dataclass(frozen=True)
class Bifurcation:
    """A located bifurcation of a periodic orbit.

    Attributes
    ----------
    kind : str
        "fold" (μ = +1), "period_doubling" (μ = −1) or "neimark_sacker" (a complex pair with |μ| = 1).
    value : float
        The parameter at the bifurcation.
    multipliers : numpy.ndarray
        The orbit's multipliers there, by decreasing modulus.
    period : int
        The orbit's period.
    rotation_number : float or None
        For a Neimark–Sacker point, arg μ / 2π of the critical pair's member with Im μ > 0 (turns per period
        of the orbit); None otherwise.
    points : numpy.ndarray
        The orbit at the bifurcation, shape (period, n).
    coefficient : float or None
        The critical normal-form coefficient (:mod:`meanfield.analysis.normal_forms`, docs/bifurcations.md §9): c of a
        period doubling, l₁ of a Neimark–Sacker point; None for a fold.
    parameter : str or int or None
        The parameter ``value`` belongs to: its index (:func:`locate_bifurcations`) or its name
        (:func:`meanfield.bifurcations`); a curve continues the point from there.
    """

    kind: str
    value: float
    multipliers: np.ndarray
    period: int
    rotation_number: float | None
    points: np.ndarray
    coefficient: float | None = None
    parameter: str | int | None = None

    @property
    def criticality(self) -> str | None:
        """"supercritical" or "subcritical" from :attr:`coefficient` (None for a fold)."""
        return criticality(self.kind, self.coefficient)


def crossing_indicators(mu: np.ndarray) -> np.ndarray:
    """[τ_F, τ_PD, τ_NS] of the multipliers (module docstring)."""
    size = np.abs(mu) + 1
    fold = np.prod((mu - 1) / size).real
    flip = np.prod((mu + 1) / size).real
    i, j = np.triu_indices(mu.size, k=1)
    pairs = mu[i] * mu[j]
    torus = np.prod((pairs - 1) / (np.abs(pairs) + 1)).real
    return np.array([fold, flip, torus])


def critical_pair(mu: np.ndarray) -> tuple[complex, complex]:
    """The pair of multipliers whose product is closest to 1 (the Neimark–Sacker candidates)."""
    i, j = np.triu_indices(mu.size, k=1)
    k = np.argmin(np.abs(mu[i] * mu[j] - 1))
    return mu[i[k]], mu[j[k]]


class OrbitBranch:
    """The multiple-shooting equations G(x, λ) = 0 of a period-p orbit along one parameter (module docstring) as
    a problem of :class:`.continuation.Continuation`: z = (x_0 … x_{p−1}, λ), ``family(value)`` the map at
    parameter ``value`` as an ``evaluate(points) -> (images, jacobians)`` (:func:`.orbits.numba_family`)."""

    name = "branch"
    #: Newton steps of one correction.
    iterations = 12

    def __init__(self, family, shape: tuple[int, int], tol: float = TOLERANCE):
        self.family, self.shape, self.tol = family, shape, tol
        size = shape[0] * shape[1]
        self.weights = np.append(np.full(size, 1.0 / size), 1.0)

    def unpack(self, z):
        return z[:-1].reshape(self.shape), z[-1]

    def system(self, z):
        """G(z), its Jacobian [∂G/∂x | ∂G/∂λ] and the orbit's Jacobians at z."""
        points, value = self.unpack(z)
        images, jacobians = self.family(value)(points)
        step = 1e-6 * max(1.0, abs(value))
        plus, _ = self.family(value + step)(points)
        minus, _ = self.family(value - step)(points)
        d_value = ((plus - minus) / (2 * step)).reshape(-1, 1)
        matrix = sp.hstack([shooting_matrix(jacobians), sp.csc_matrix(d_value)]).tocsc()
        return residuals(points, images).ravel(), matrix, jacobians

    def converged(self, g, z, jacobians) -> bool:
        """G = 0 to the orbit's tolerance (:data:`.orbits.TOLERANCE` relative to the largest entry)."""
        return bool(np.abs(g).max() <= self.tol * max(1.0, np.abs(self.unpack(z)[0]).max()))

    def bordered_solve(self, matrix, row, rhs):
        """[matrix; row]⁻¹ rhs by sparse LU (NaN entries when singular)."""
        return solve(sp.vstack([matrix, sp.csr_matrix(row)]).tocsc(), rhs)


def continue_and_locate(family, points, period: int, interval, resolution: float = 1e-10,
                        max_points: int = MAX_POINTS, on_iterate=None) -> tuple[list[Bifurcation], dict]:
    """Follow the orbit through ``points`` from ``interval[0]`` towards ``interval[1]`` and locate every
    fold, period doubling and Neimark–Sacker point on the way (module docstring); ``on_iterate``, if given, is
    called with the parameter value of every Newton iterate (progress displays).

    Returns the bifurcations in branch order and the branch itself at its continuation points (for figures):
    ``{"value": (k,), "points": (k, p, n), "multipliers": (k, n), "stable": (k,)}``.
    """
    start, end = (float(v) for v in interval)
    direction = 1.0 if end >= start else -1.0
    points, _, _, _, _ = newton_orbit(family(start), np.asarray(points, dtype=np.float64), TOLERANCE)
    problem = OrbitBranch(family, points.shape)
    branch = Continuation(problem, on_iterate)
    z = np.append(points.ravel(), start)
    t = branch.tangent(z, direction)
    _, _, jacobians = problem.system(z)
    mu = multipliers(jacobians)
    tests = crossing_indicators(mu)
    h = max_step = abs(end - start) / 20
    min_step = abs(end - start) * 1e-9
    found, values, orbits, mus = [], [z[-1]], [problem.unpack(z)[0]], [mu]
    for _ in range(max_points):
        corrected = branch.correct(z, t, h)
        if corrected is None:
            if h <= min_step:
                break
            h /= 2
            continue
        z_new, jacobians = corrected
        mu_new = multipliers(jacobians)
        tests_new = crossing_indicators(mu_new)
        for kind, before, after in zip(KINDS, tests, tests_new):
            if np.sign(before) != np.sign(after) and before != 0:
                located = _locate(branch, z, t, h, KINDS.index(kind), resolution, period)
                if located is not None and min(start, end) <= located.value <= max(start, end):
                    found.append(located)
        t = branch.tangent(z_new, t)
        z, mu, tests = z_new, mu_new, tests_new
        values.append(z[-1])
        orbits.append(problem.unpack(z)[0])
        mus.append(mu)
        if (z[-1] - end) * direction > 0 or (z[-1] - start) * direction < 0:
            break
        h = min(h * 1.5, max_step)
    mus = np.array(mus)
    return found, {"value": np.array(values), "points": np.array(orbits), "multipliers": mus,
                   "stable": np.abs(mus).max(axis=1) < 1}


def root_on_step(correct, test, z0, t0, h: float, xtol: float):
    """Brent's method on the arclength s ∈ [0, h] of one continuation step for a root of ``test(z, jacobians)``,
    each evaluation the point ``correct(z0, t0, s)`` (None when Newton fails); returns that point there."""
    cache = {}

    def test_at(s):
        corrected = correct(z0, t0, s)
        if corrected is None:
            raise AnalysisError("the branch could not be corrected inside a bracketing step")
        cache[s] = corrected
        return test(*corrected)

    s = brentq(test_at, 0.0, h, xtol=xtol, rtol=4 * np.finfo(float).eps)
    return cache[s] if s in cache else correct(z0, t0, s)


def neutral_saddle(mu: np.ndarray) -> bool:
    """The critical pair (:func:`critical_pair`) is real: μ_i μ_j = 1 with two real multipliers, no
    Neimark–Sacker point (module docstring)."""
    first, _ = critical_pair(mu)
    return bool(abs(first.imag) <= 1e-8 * max(1.0, abs(first)))


def _locate(branch: Continuation, z0, t0, h, which: int, resolution: float, period: int) -> Bifurcation | None:
    """Brent's method on the arclength of one continuation step for the root of test function ``which``."""
    z, jacobians = root_on_step(branch.correct, lambda z, jac: crossing_indicators(multipliers(jac))[which],
                                z0, t0, h, resolution / 4)
    mu = multipliers(jacobians)
    points, value = branch.problem.unpack(z)
    kind = KINDS[which]
    rotation = None
    if kind == "neimark_sacker":
        if neutral_saddle(mu):
            return None
        rotation = float(abs(np.angle(critical_pair(mu)[0])) / (2 * np.pi))
    coefficient = normal_form_coefficient(kind, branch.problem.family(value), points, jacobians)
    return Bifurcation(kind=kind, value=float(value), multipliers=mu, period=period, rotation_number=rotation,
                       points=points, coefficient=coefficient)


def locate_bifurcations(step, jacobian, x0, period: int, parameter_index: int, interval, *, params,
                        resolution: float = 1e-10) -> list[Bifurcation]:
    """Continue a periodic orbit in one parameter and locate its folds, period doublings and Neimark–Sacker
    points (docs/bifurcations.md §2–§3): the period-``period`` orbit through ``x0``, along
    ``params[parameter_index]`` over ``interval``.

    Parameters
    ----------
    step, jacobian : numba ``@njit`` functions
        ``step(x, params, out)``, ``jacobian(x, params, out)`` as for
        :func:`~meanfield.analysis.lyapunov_spectrum`.
    x0 : array_like, 1-D
        A point on or near the orbit at ``params[parameter_index] = interval[0]``.
    period : int
        The orbit's period.
    parameter_index : int
        The entry of ``params`` that varies.
    interval : (float, float)
        Start and end of the continuation (either order: the branch is followed from the first to the second).
    params : array_like
        The full parameter vector (entry ``parameter_index`` is overwritten).
    resolution : float
        Each bifurcation is located to this accuracy in the parameter.

    Returns
    -------
    list of Bifurcation
        In the order met along the branch.
    """
    par = as_series(params, name="params")
    index = int(parameter_index)
    if not 0 <= index < par.size:
        raise AnalysisError(f"parameter_index: {parameter_index!r}; must lie in [0, {par.size})")
    lo, hi = (float(v) for v in interval)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo == hi:
        raise AnalysisError(f"interval: {interval!r}; must be two different finite numbers")
    if not 0 < resolution < abs(hi - lo):
        raise AnalysisError(f"resolution: {resolution!r}; must be positive and below the interval's length")
    period = check_period(period)
    family = numba_family(step, jacobian, par, index)
    par[index] = lo
    points = iterate_points(step, as_series(x0, name="x0"), period, par)
    found, _ = continue_and_locate(family, points, period, (lo, hi), resolution)
    return [replace(point, parameter=index) for point in found]
