"""Fold, period-doubling and Neimark–Sacker curves of a period-p cycle of a map in two parameters
(docs/bifurcations.md §8, "Two-parameter curves").

A codim-1 point located by :func:`.bifurcations.locate_bifurcations` is continued in two parameters
α = (α_1, α_2) on the *minimally extended system* (Kuznetsov, *Elements of Applied Bifurcation Theory*, 3rd ed.
2004, §10.2; Govaerts, Kuznetsov, Khoshsiar Ghaziani & Meijer, MatContM): unknowns z = (x_0 … x_{p−1}, α_1,
α_2), equations

    G_i(x, α) = F(x_i; α) − x_{(i+1) mod p} = 0   (the multiple shooting of :mod:`.orbits`),
    g(x, α) = 0                                  (one scalar test function of the monodromy M = J_{p−1} ⋯ J_0),

pn + 1 equations in pn + 2 unknowns, so a curve. The scalar g is a determinant, a polynomial in M's entries and
hence smooth along the curve (the normalised products of :mod:`.bifurcations` are not differentiable where two
real multipliers collide):

* fold (μ = +1):             g_F  = det(M − I)
* period doubling (μ = −1):   g_PD = det(M + I)
* Neimark–Sacker (μ_i μ_j = 1): g_NS = det(M ⊙ M − I) = Π_{i<j} (μ_i μ_j − 1), the bialternate product
  (Kuznetsov §10.2.3), computed from the eigenvalues (a symmetric function, so real and smooth).

MatContM's bordered g (same zero set, better scaled for large p) is not built. Newton's row ∂g/∂z and the
parameter derivatives are central differences, in 2n evaluations of the cycle (docs/bifurcations.md §8); they do
not move the converged points. The curve is followed by pseudo-arclength continuation (Keller 1977; the engine of
:mod:`.continuation`, of which :class:`ExtendedCurve` is a problem) in the
weighted inner product of :mod:`.bifurcations`, both ways until α_2 leaves ``interval``; every point carries the
normal-form coefficient of its kind (:mod:`meanfield.analysis.normal_forms`).

Codim-2 points are sign changes of test functions ψ between consecutive curve points, located by Brent's
method on the step's arclength (each evaluation a corrected curve point): on a fold curve the fold–flip
(ψ = det(M + I)); on a period-doubling curve the fold–flip (ψ = det(M − I)) and the generalised period
doubling (ψ = c); on a Neimark–Sacker curve the strong resonances 1:1, 1:2, 1:3, 1:4, where the critical
pair's angle θ passes 0, π, 2π/3, π/2 (ψ_k = Re(μ_a + μ_b)/2 − cos θ_k with μ_a μ_b ≈ 1 the critical pair;
beyond 1:1 and 1:2 the pair is real, a *neutral saddle*, flagged per point), and the Chenciner point (ψ = l₁,
watched where the pair is complex; a sign change through a pole of l₁, near the 1:3 resonance, is not a root
and is dropped: the value at the located point must be below 1e−3 of those either side). The cusp on fold
curves is not computed (its coefficient ½⟨p, B(q, q)⟩ needs q oriented continuously along the curve).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from meanfield.short_repr import short_repr

from ..errors import AnalysisError
from ._input import as_series
from .bifurcations import KINDS, Bifurcation, critical_pair, crossing_indicators, neutral_saddle, root_on_step
from .continuation import Continuation
from .defining import defining, defining_gradient
from .normal_forms import criticality, monodromy, normal_form_coefficient
from .orbits import TOLERANCE, check_period, multipliers, newton_orbit, numba_family, residuals, shooting_matrix

#: At most this many continuation steps in each direction.
MAX_POINTS = 1000
#: The start must satisfy |τ| ≤ START_TOLERANCE for the normalised test function of its kind (bifurcations.py).
START_TOLERANCE = 1e-6
#: Chord iterations (Newton's matrix of the step's start reused) before Newton proper, in a corrector.
CHORD_STEPS = 8
#: A corrected point farther than JUMP times the step from its predictor is refused (on the validation curves
#: the corrector moves at most 0.034 of a step; a jump to a neighbouring curve moves about one step).
JUMP = 0.5
#: Memory for the Jacobians of one call of the family in ∂g/∂x (several moved copies of the cycle at once).
DIFFERENCE_BYTES = 2 ** 27
#: Strong resonances on a Neimark–Sacker curve: name → the angle θ of the critical pair.
RESONANCES = {"1:1": 0.0, "1:2": np.pi, "1:3": 2 * np.pi / 3, "1:4": np.pi / 2}


@short_repr
@dataclass(frozen=True)
class CodimTwo:
    """A codim-2 point on a curve: ``kind`` ("fold_flip", "resonance_1:3", …), ``test`` (the test function
    that vanished, as a formula), ``values`` (α_1, α_2), ``multipliers`` and ``points`` (the cycle there)."""

    kind: str
    test: str
    values: np.ndarray
    multipliers: np.ndarray
    points: np.ndarray


@short_repr
@dataclass(frozen=True)
class Curve:
    """A continued codim-1 curve: ``kind``, ``period``, ``parameters`` (the two indices into ``params``),
    ``values`` (k, 2) = (α_1, α_2) along the curve, ``points`` (k, p, n), ``multipliers`` (k, n),
    ``neutral_saddle`` (k,) (Neimark–Sacker curves: the critical pair is real there), ``special`` (the
    codim-2 points, :class:`~meanfield.analysis.curves.CodimTwo`) and ``coefficients`` (k,), the normal-form coefficient
    per point (:mod:`meanfield.analysis.normal_forms`: c on period-doubling, l₁ on Neimark–Sacker curves; NaN on fold
    curves and at neutral saddles)."""

    kind: str
    period: int
    parameters: tuple
    values: np.ndarray
    points: np.ndarray
    multipliers: np.ndarray
    neutral_saddle: np.ndarray
    special: list
    coefficients: np.ndarray

    @property
    def criticality(self) -> list:
        """Per point "supercritical", "subcritical" or None (:func:`meanfield.analysis.normal_forms.criticality`)."""
        return [criticality(self.kind, c) for c in self.coefficients]


class ExtendedCurve:
    """[G(x, α); g(x, α)] = 0 (module docstring) as a problem of :class:`.continuation.Continuation`:
    z = (x_0 … x_{p−1}, α_1, α_2), ``family(α)`` the map at α = (α_1, α_2) as an
    ``evaluate(points) -> (images, jacobians)``; the test functions and normal-form coefficients of its points."""

    name = "curve"
    #: Newton steps of one correction (the first :data:`CHORD_STEPS` may be chord steps, which converge linearly).
    iterations = 15

    def __init__(self, family, kind, shape, tol=TOLERANCE):
        self.family, self.kind, self.shape, self.tol = family, kind, shape, tol
        size = shape[0] * shape[1]
        self.weights = np.append(np.full(size, 1.0 / size), [1.0, 1.0])

    def _parts(self, z):
        """G(z) (flattened), g(z) and the orbit's Jacobians."""
        points = z[:-2].reshape(self.shape)
        images, jacobians = self.family(z[-2:])(points)
        return residuals(points, images).ravel(), float(defining(self.kind, monodromy(jacobians))), jacobians

    def residual(self, z):
        """F(z) = [G; g] and the orbit's Jacobians (no Jacobian of F: a chord step)."""
        g_vec, g, jacobians = self._parts(z)
        return np.append(g_vec, g), jacobians

    def _dg_dx(self, z, jacobians):
        """∂g/∂x. g depends on the point x_k only through J_k, and M = A_k J_k B_k with A_k = J_{p−1} ⋯ J_{k+1},
        B_k = J_{k−1} ⋯ J_0, so ∂g/∂x_{k,j} = ⟨H_k, ∂J_k/∂x_{k,j}⟩ with H_k = A_kᵀ G B_kᵀ and G = ∂g/∂M
        (:func:`defining_gradient`); ∂J_k/∂x_{k,j} by central differences, coordinate j of every point moved at
        once. The moved copies of the cycle go to the family together, as many as DIFFERENCE_BYTES of Jacobians
        hold (point i of a call has the phase of i mod p). O(p n³ + n · (one evaluation)): no determinant or
        eigenvalue problem per difference."""
        points = z[:-2].reshape(self.shape)
        p, n = self.shape
        before = [np.eye(n)]
        for jac in jacobians[:-1]:
            before.append(jac @ before[-1])
        after = [np.eye(n)]
        for jac in jacobians[:0:-1]:
            after.append(after[-1] @ jac)
        before, after = np.array(before), np.array(after[::-1])
        gradient = defining_gradient(self.kind, after[0] @ jacobians[0])
        weights = after.transpose(0, 2, 1) @ gradient @ before.transpose(0, 2, 1)        # H_k, (p, n, n)
        evaluate = self.family(z[-2:])
        steps = 1e-6 * np.maximum(1.0, np.abs(points))                       # (p, n), one per unknown
        out = np.empty((p, n))
        per_call = max(1, DIFFERENCE_BYTES // (16 * p * n * n))             # coordinates whose 2p Jacobians fit
        for first in range(0, n, per_call):
            coords = np.arange(first, min(first + per_call, n))
            shifted = np.repeat(points[None, None], len(coords), axis=0).repeat(2, axis=1)    # (c, ±, p, n)
            shifted[np.arange(len(coords)), 0, :, coords] += steps[:, coords].T
            shifted[np.arange(len(coords)), 1, :, coords] -= steps[:, coords].T
            moved = evaluate(shifted.reshape(-1, n), with_images=False)[1].reshape(len(coords), 2, p, n, n)
            out[:, coords] = np.einsum("kab,ckab->kc", weights, moved[:, 0] - moved[:, 1]) / (2 * steps[:, coords])
        return out.ravel()

    def system(self, z):
        """F(z) = [G; g] and its (pn + 1) × (pn + 2) Jacobian (finite differences where module docstring says)."""
        g_vec, g, jacobians = self._parts(z)
        size = g_vec.size
        matrix = np.zeros((size + 1, size + 2))
        matrix[:size, :size] = shooting_matrix(jacobians).toarray()
        matrix[size, :size] = self._dg_dx(z, jacobians)
        for k in (size, size + 1):
            h = 1e-6 * max(1.0, abs(z[k]))
            plus, minus = z.copy(), z.copy()
            plus[k] += h
            minus[k] -= h
            gp, sp_, _ = self._parts(plus)
            gm, sm, _ = self._parts(minus)
            matrix[:size, k] = (gp - gm) / (2 * h)
            matrix[size, k] = (sp_ - sm) / (2 * h)
        return np.append(g_vec, g), matrix, jacobians

    def coefficient(self, z, jacobians) -> float:
        """The normal-form coefficient at curve point z (:mod:`meanfield.analysis.normal_forms`); NaN for a fold or a
        neutral saddle."""
        value = normal_form_coefficient(self.kind, self.family(z[-2:]), z[:-2].reshape(self.shape), jacobians)
        return np.nan if value is None else value

    def tests(self, z, jacobians) -> dict:
        """name → (formula, value) of the codim-2 test functions watched along the curve (module docstring)."""
        mu = multipliers(jacobians)
        if self.kind == "fold":
            return {"fold_flip": ("det(M + I)", float(np.prod(mu + 1).real))}
        if self.kind == "period_doubling":
            return {"fold_flip": ("det(M − I)", float(np.prod(mu - 1).real)),
                    "generalised_period_doubling": ("c", self.coefficient(z, jacobians))}
        first, second = critical_pair(mu)
        half_trace = float((first + second).real / 2)
        tests = {f"resonance_{name}": (f"Re(μ_a + μ_b)/2 − cos({theta:.6g})", half_trace - np.cos(theta))
                 for name, theta in RESONANCES.items()}
        tests["chenciner"] = ("l₁", self.coefficient(z, jacobians))
        return tests

    def converged(self, f, z, jacobians) -> bool:
        """G = 0 to the orbit's tolerance and g = 0 to it relative to Π (1 + |μ_i|), g's scale."""
        scale = max(1.0, np.abs(z[:-2]).max())
        size = np.prod(1 + np.abs(multipliers(jacobians)))
        return bool(np.abs(f[:-1]).max() <= self.tol * scale and abs(f[-1]) <= self.tol * size)

    def bordered_solve(self, matrix, row, rhs):
        """[matrix; row]⁻¹ rhs (dense); None when singular."""
        try:
            return np.linalg.solve(np.vstack([matrix, row]), rhs)
        except np.linalg.LinAlgError:
            return None


def _locate(curve: Continuation, z0, t0, h, name, chord) -> tuple[CodimTwo, float]:
    """Brent's method on the arclength of one step for the root of codim-2 test ``name``; the point and the
    test's value there."""
    system = curve.problem
    z, jacobians = root_on_step(lambda *a: curve.correct(*a, chord, CHORD_STEPS),
                                lambda z, jac: system.tests(z, jac)[name][1],
                                z0, t0, h, 1e-12)
    formula, value = system.tests(z, jacobians)[name]
    return CodimTwo(kind=name, test=formula, values=z[-2:].copy(), multipliers=multipliers(jacobians),
                    points=z[:-2].reshape(system.shape).copy()), value


#: The test whose value is the curve's normal-form coefficient, by kind.
COEFFICIENT_TEST = {"period_doubling": "generalised_period_doubling", "neimark_sacker": "chenciner"}


def _point(system, z, jacobians, tests=None):
    """(z, multipliers, coefficient) of one curve point."""
    tests = system.tests(z, jacobians) if tests is None else tests
    name = COEFFICIENT_TEST.get(system.kind)
    return z, multipliers(jacobians), np.nan if name is None else tests[name][1]


def _trace(curve: Continuation, z, t, interval, max_step, max_points):
    """One direction of the curve from z along t; returns (points as :func:`_point`, special)."""
    lo, hi = min(interval), max(interval)
    system = curve.problem
    tests = system.tests(z, system.residual(z)[1])
    chord = system.system(z)[1]
    found, special = [], []
    h = max_step
    for _ in range(max_points):
        corrected = curve.correct(z, t, h, chord, CHORD_STEPS)
        # a corrector that moved farther than JUMP steps from its predictor has left for another curve
        # (docs/bifurcations.md §8): the step is halved
        if corrected is None or curve.distance(corrected[0], z + h * t) > JUMP * h:
            if h <= max_step * 1e-6:
                break
            h /= 2
            continue
        z_new, jacobians = corrected
        tests_new = system.tests(z_new, jacobians)
        for name, (_, before) in tests.items():
            after = tests_new[name][1]
            if before != 0 and np.isfinite(before) and np.isfinite(after) and np.sign(before) != np.sign(after):
                point, value = _locate(curve, z, t, h, name, chord)
                # a coefficient that changes sign through a pole (near the 1:3 resonance) is no root
                if lo <= point.values[1] <= hi and abs(value) <= 1e-3 * max(abs(before), abs(after)):
                    special.append(point)
        if not lo <= z_new[-1] <= hi:  # end exactly on the interval's edge: Newton with α_2 held there
            z_new = z_new.copy()
            z_new[-1] = lo if z_new[-1] < lo else hi
            hold = np.zeros_like(z_new)
            hold[-1] = 1.0
            edge = curve.correct(z_new, hold, 0.0)
            if edge is not None:
                found.append(_point(system, *edge))
            break
        chord = system.system(z_new)[1]
        t = curve.tangent(z_new, t, chord)
        z, tests = z_new, tests_new
        found.append(_point(system, z, jacobians, tests))
        h = min(1.5 * h, max_step)
    return found, special


def trace_curve(family, kind: str, points, values, interval, *, parameters=(0, 1), max_step: float | None = None,
                max_points: int = MAX_POINTS, on_iterate=None) -> Curve:
    """The curve of ``kind`` through the cycle ``points`` (p, n) at α = ``values`` (α_1 located), for a map given
    as a family ``family(α) -> evaluate`` (:class:`ExtendedCurve`); ``interval`` the range of α_2 (checked by
    the caller), ``parameters`` what :attr:`Curve.parameters` says, ``on_iterate`` called with α_2 at every
    Newton iterate (progress displays). See :func:`continue_curve`."""
    lo, hi = interval
    values = np.array(values, dtype=np.float64)
    points, _, jacobians, _, _ = newton_orbit(family(values), points)
    tau = crossing_indicators(multipliers(jacobians))[KINDS.index(kind)]
    if not abs(tau) <= START_TOLERANCE:
        raise AnalysisError(f"start: not a {kind} point (its test function is {tau:.3g}, not 0)")
    system = ExtendedCurve(family, kind, points.shape)
    curve = Continuation(system, on_iterate)
    z0 = np.append(points.ravel(), values)
    fix_second = np.zeros_like(z0)
    fix_second[-1] = 1.0
    corrected = curve.correct(z0, fix_second, 0.0)  # Newton with α_2 held at the start's value
    if corrected is None:
        raise AnalysisError("start: the extended system does not converge from this point")
    max_step = (hi - lo) / 25 if max_step is None else float(max_step)
    pieces = []
    for direction in (-1.0, 1.0):
        seed = np.zeros_like(z0)
        seed[-1] = direction
        t = curve.tangent(corrected[0], seed / system.weights)
        pieces.append(_trace(curve, corrected[0], t, (lo, hi), max_step, max_points))
    (down, sp_down), (up, sp_up) = pieces
    zs, mus, coefficients = (np.array(column) for column in zip(*(down[::-1] + [_point(system, *corrected)] + up)))
    neutral = np.zeros(len(zs), dtype=bool)
    if kind == "neimark_sacker":
        neutral = np.array([neutral_saddle(m) for m in mus])
    return Curve(kind=kind, period=points.shape[0], parameters=tuple(parameters), values=zs[:, -2:],
                 points=zs[:, :-2].reshape(len(zs), *points.shape), multipliers=mus, neutral_saddle=neutral,
                 special=sp_down[::-1] + sp_up, coefficients=coefficients)


def continue_curve(step, jacobian, start: Bifurcation, parameters, interval, *, params,
                   max_step: float | None = None, max_points: int = MAX_POINTS) -> Curve:
    """Continue a fold, period-doubling or Neimark–Sacker point of a period-p cycle in two parameters
    (docs/bifurcations.md §8–§9; Kuznetsov 2004 §10.2; MatContM).

    Parameters
    ----------
    step, jacobian : numba ``@njit`` functions
        ``step(x, params, out)``, ``jacobian(x, params, out)`` as for :func:`.locate_bifurcations`.
    start : Bifurcation
        A point returned by :func:`.locate_bifurcations`: its ``value`` is α_1, its ``points`` the cycle,
        its ``kind`` the curve's kind ("fold", "period_doubling" or "neimark_sacker"; another kind through the
        same point: ``dataclasses.replace(start, kind=...)``), its ``period`` the cycle's period.
    parameters : (int, int)
        Indices into ``params`` of α_1 (the parameter ``start`` was located in) and α_2.
    interval : (float, float)
        The range of α_2; ``params[parameters[1]]`` (the start's α_2) must lie inside. The curve is followed
        from the start in both directions until α_2 leaves it (or ``max_points`` steps each way).
    params : array_like
        The full parameter vector at the start (entry ``parameters[0]`` is overwritten by ``start.value``).
    max_step : float, optional
        Largest arclength step (default 1/25 of the interval's length).

    Returns
    -------
    Curve
        Points ordered by increasing arclength from ``interval``'s low side, with their normal-form
        coefficients and the codim-2 points found.
    """
    kind = start.kind
    if kind not in KINDS:
        raise AnalysisError(f"kind: {kind!r}; must be one of {', '.join(KINDS)}")
    par = as_series(params, name="params")
    first, second = (int(i) for i in parameters)
    if first == second or not (0 <= first < par.size and 0 <= second < par.size):
        raise AnalysisError(f"parameters: {parameters!r}; must be two different indices in [0, {par.size})")
    lo, hi = (float(v) for v in interval)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo >= hi or not lo <= par[second] <= hi:
        raise AnalysisError(f"interval: {interval!r}; must be two finite increasing numbers around "
                            f"params[{second}] = {par[second]!r}")
    period = check_period(start.period)
    points = as_series(start.points, name="start.points", ndim=(2,))
    if points.shape[0] != period:
        raise AnalysisError(f"start.points: shape {points.shape}; must have period = {period} rows")
    numba_family(step, jacobian, par)  # checks that step and jacobian are numba functions

    def family(values):
        at = par.copy()
        at[[first, second]] = values
        return numba_family(step, jacobian, at)()

    return trace_curve(family, kind, points, (float(start.value), par[second]), (lo, hi),
                       parameters=(first, second), max_step=max_step, max_points=max_points)
