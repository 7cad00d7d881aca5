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

This replaces MatContM's bordered g (same zero set; bordering keeps g well scaled for large p and is not built).
The row ∂g/∂z of Newton's matrix is a central finite difference over all pn + 2 unknowns (pn + 2 extra
monodromy evaluations per Newton step, cheap for the small pn this is meant for; dense linear algebra);
∂G/∂α is a central difference too. Neither moves the converged points: they solve G = 0 to the orbit's
tolerance and g = 0 to 1e−12 relative to Π(1 + |μ_i|). The curve is followed by pseudo-arclength continuation
(Keller 1977) in the weighted inner product of :mod:`.bifurcations`, from the start in both directions until
α_2 leaves ``interval``.

Codim-2 points are sign changes of test functions ψ between consecutive curve points, located by Brent's
method on the step's arclength (each evaluation a corrected curve point): on a fold curve the fold–flip
(ψ = det(M + I)); on a period-doubling curve the fold–flip (ψ = det(M − I)); on a Neimark–Sacker curve the
strong resonances 1:1, 1:2, 1:3, 1:4, where the critical pair's angle θ passes 0, π, 2π/3, π/2
(ψ_k = Re(μ_a + μ_b)/2 − cos θ_k with μ_a μ_b ≈ 1 the critical pair; beyond 1:1 and 1:2 the pair is real,
a *neutral saddle*, flagged per point). Cusp, generalised period doubling and Chenciner points need normal-form
coefficients, which are not computed here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from meanfield.analysis._input import as_series
from meanfield.analysis.bifurcations import KINDS, Bifurcation, critical_pair, crossing_indicators
from meanfield.analysis.orbits import (
    TOLERANCE,
    check_period,
    multipliers,
    newton_orbit,
    numba_family,
    residuals,
    shooting_matrix,
)
from meanfield.errors import AnalysisError

#: At most this many continuation steps in each direction.
MAX_POINTS = 1000
#: The start must satisfy |τ| ≤ START_TOLERANCE for the normalised test function of its kind (bifurcations.py).
START_TOLERANCE = 1e-6
#: Strong resonances on a Neimark–Sacker curve: name → the angle θ of the critical pair.
RESONANCES = {"1:1": 0.0, "1:2": np.pi, "1:3": 2 * np.pi / 3, "1:4": np.pi / 2}


@dataclass(frozen=True)
class CodimTwo:
    """A codim-2 point on a curve: ``kind`` ("fold_flip", "resonance_1:3", …), ``test`` (the test function
    that vanished, as a formula), ``values`` (α_1, α_2), ``multipliers`` and ``points`` (the cycle there)."""

    kind: str
    test: str
    values: np.ndarray
    multipliers: np.ndarray
    points: np.ndarray


@dataclass(frozen=True)
class Curve:
    """A continued codim-1 curve: ``kind``, ``period``, ``parameters`` (the two indices into ``params``),
    ``values`` (k, 2) = (α_1, α_2) along the curve, ``points`` (k, p, n), ``multipliers`` (k, n),
    ``neutral_saddle`` (k,) (Neimark–Sacker curves: the critical pair is real there) and ``special`` (the
    codim-2 points, :class:`CodimTwo`)."""

    kind: str
    period: int
    parameters: tuple[int, int]
    values: np.ndarray
    points: np.ndarray
    multipliers: np.ndarray
    neutral_saddle: np.ndarray
    special: list


def monodromy(jacobians: np.ndarray) -> np.ndarray:
    """J_{p−1} ⋯ J_0, unscaled (the determinants need M itself; fine while the multipliers are moderate)."""
    product = np.eye(jacobians.shape[1])
    for jac in jacobians:
        product = jac @ product
    return product


def defining(kind: str, jacobians: np.ndarray) -> float:
    """The scalar g of the extended system (module docstring)."""
    m = monodromy(jacobians)
    if kind == "fold":
        return float(np.linalg.det(m - np.eye(len(m))))
    if kind == "period_doubling":
        return float(np.linalg.det(m + np.eye(len(m))))
    mu = np.linalg.eigvals(m)
    i, j = np.triu_indices(mu.size, k=1)
    return float(np.prod(mu[i] * mu[j] - 1).real)


def codim_two_tests(kind: str, mu: np.ndarray) -> dict:
    """name → (formula, value) of the test functions watched along a curve of ``kind`` (module docstring)."""
    if kind == "fold":
        return {"fold_flip": ("det(M + I)", float(np.prod(mu + 1).real))}
    if kind == "period_doubling":
        return {"fold_flip": ("det(M − I)", float(np.prod(mu - 1).real))}
    first, second = critical_pair(mu)
    half_trace = float((first + second).real / 2)
    return {f"resonance_{name}": (f"Re(μ_a + μ_b)/2 − cos({theta:.6g})", half_trace - np.cos(theta))
            for name, theta in RESONANCES.items()}


class ExtendedSystem:
    """[G(x, α); g(x, α)] = 0 and its pseudo-arclength continuation (module docstring)."""

    def __init__(self, step, jacobian, params, indices, kind, shape, tol=TOLERANCE):
        self.step, self.jacobian, self.params, self.indices = step, jacobian, params, indices
        self.kind, self.shape, self.tol = kind, shape, tol
        size = shape[0] * shape[1]
        self.weights = np.append(np.full(size, 1.0 / size), [1.0, 1.0])

    def evaluate(self, z):
        par = self.params.copy()
        par[list(self.indices)] = z[-2:]
        return numba_family(self.step, self.jacobian, par)()(z[:-2].reshape(self.shape))

    def residual(self, z):
        images, jacobians = self.evaluate(z)
        return residuals(z[:-2].reshape(self.shape), images).ravel(), defining(self.kind, jacobians), jacobians

    def system(self, z):
        """F(z) = [G; g] and its (pn + 1) × (pn + 2) Jacobian (finite differences where module docstring says)."""
        g_vec, g, jacobians = self.residual(z)
        size = g_vec.size
        matrix = np.zeros((size + 1, size + 2))
        matrix[:size, :size] = shooting_matrix(jacobians).toarray()
        for k in range(size + 2):
            h = 1e-6 * max(1.0, abs(z[k]))
            plus, minus = z.copy(), z.copy()
            plus[k] += h
            minus[k] -= h
            gp, sp_, _ = self.residual(plus)
            gm, sm, _ = self.residual(minus)
            if k >= size:
                matrix[:size, k] = (gp - gm) / (2 * h)
            matrix[size, k] = (sp_ - sm) / (2 * h)
        return np.append(g_vec, g), matrix, jacobians

    def unit(self, t):
        return t / np.sqrt(t @ (self.weights * t))

    def tangent(self, z, previous):
        """Unit tangent at z oriented along ``previous`` (a vector)."""
        _, matrix, _ = self.system(z)
        rhs = np.zeros(z.size)
        rhs[-1] = 1.0
        try:
            t = np.linalg.solve(np.vstack([matrix, self.weights * previous]), rhs)
        except np.linalg.LinAlgError:
            raise AnalysisError("the curve's tangent is undefined (singular extended system)") from None
        return self.unit(t)

    def converged(self, f, z, jacobians):
        scale = max(1.0, np.abs(z[:-2]).max())
        size = np.prod(1 + np.abs(multipliers(jacobians)))
        return np.abs(f[:-1]).max() <= self.tol * scale and abs(f[-1]) <= self.tol * size

    def correct(self, z0, t0, s):
        """The curve point at arclength s from z0 along t0, or None when Newton fails."""
        z = z0 + s * t0
        for _ in range(15):
            f, matrix, jacobians = self.system(z)
            if not np.all(np.isfinite(f)):
                return None
            if self.converged(f, z, jacobians):
                return z, jacobians
            row = self.weights * t0
            try:
                z = z + np.linalg.solve(np.vstack([matrix, row]), -np.append(f, row @ (z - z0) - s))
            except np.linalg.LinAlgError:
                return None
        return None


def _locate(system, z0, t0, h, name, period) -> CodimTwo | None:
    """Brent's method on the arclength of one step for the root of codim-2 test ``name``."""
    cache = {}

    def psi(s):
        corrected = system.correct(z0, t0, s)
        if corrected is None:
            raise AnalysisError("the curve could not be corrected inside a bracketing step")
        cache[s] = corrected
        return codim_two_tests(system.kind, multipliers(corrected[1]))[name][1]

    s = brentq(psi, 0.0, h, xtol=1e-12, rtol=4 * np.finfo(float).eps)
    z, jacobians = cache[s] if s in cache else system.correct(z0, t0, s)
    mu = multipliers(jacobians)
    return CodimTwo(kind=name, test=codim_two_tests(system.kind, mu)[name][0], values=z[-2:].copy(),
                    multipliers=mu, points=z[:-2].reshape(system.shape).copy())


def _trace(system, z, t, interval, period, max_step, max_points):
    """One direction of the curve from z along t; returns (zs, mus, special)."""
    lo, hi = min(interval), max(interval)
    _, _, jacobians = system.residual(z)
    mu = multipliers(jacobians)
    tests = codim_two_tests(system.kind, mu)
    zs, mus, special = [], [], []
    h = max_step
    for _ in range(max_points):
        corrected = system.correct(z, t, h)
        if corrected is None:
            if h <= max_step * 1e-6:
                break
            h /= 2
            continue
        z_new, jacobians = corrected
        mu_new = multipliers(jacobians)
        tests_new = codim_two_tests(system.kind, mu_new)
        for name, (_, before) in tests.items():
            after = tests_new[name][1]
            if before != 0 and np.sign(before) != np.sign(after):
                found = _locate(system, z, t, h, name, period)
                if found is not None and lo <= found.values[1] <= hi:
                    special.append(found)
        if not lo <= z_new[-1] <= hi:  # end exactly on the interval's edge: Newton with α_2 held there
            z_new = z_new.copy()
            z_new[-1] = lo if z_new[-1] < lo else hi
            hold = np.zeros_like(z_new)
            hold[-1] = 1.0
            edge = system.correct(z_new, hold, 0.0)
            if edge is not None:
                zs.append(edge[0])
                mus.append(multipliers(edge[1]))
            break
        t = system.tangent(z_new, t)
        z, mu, tests = z_new, mu_new, tests_new
        zs.append(z)
        mus.append(mu)
        h = min(1.5 * h, max_step)
    return zs, mus, special


def continue_curve(step, jacobian, start: Bifurcation, parameters, interval, *, params, kind: str | None = None,
                   max_step: float | None = None, max_points: int = MAX_POINTS) -> Curve:
    """Continue a fold, period-doubling or Neimark–Sacker point of a period-p cycle in two parameters
    (docs/bifurcations.md §8; Kuznetsov 2004 §10.2; MatContM).

    Parameters
    ----------
    step, jacobian : numba ``@njit`` functions
        ``step(x, params, out)``, ``jacobian(x, params, out)`` as for :func:`.locate_bifurcations`.
    start : Bifurcation
        A point returned by :func:`.locate_bifurcations`: its ``value`` is α_1, its ``points`` the cycle,
        its ``kind`` the curve's kind (unless ``kind`` is given), its ``period`` the cycle's period.
    parameters : (int, int)
        Indices into ``params`` of α_1 (the parameter ``start`` was located in) and α_2.
    interval : (float, float)
        The range of α_2; ``params[parameters[1]]`` (the start's α_2) must lie inside. The curve is followed
        from the start in both directions until α_2 leaves it (or ``max_points`` steps each way).
    params : array_like
        The full parameter vector at the start (entry ``parameters[0]`` is overwritten by ``start.value``).
    kind : str, optional
        "fold", "period_doubling" or "neimark_sacker"; defaults to ``start.kind``.
    max_step : float, optional
        Largest arclength step (default 1/25 of the interval's length).

    Returns
    -------
    Curve
        Points ordered by increasing arclength from ``interval``'s low side, with the codim-2 points found.
    """
    kind = start.kind if kind is None else kind
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
    par[first] = float(start.value)
    points, _, jacobians, _, _ = newton_orbit(numba_family(step, jacobian, par)(), points)
    tau = crossing_indicators(multipliers(jacobians))[KINDS.index(kind)]
    if not abs(tau) <= START_TOLERANCE:
        raise AnalysisError(f"start: not a {kind} point (its test function is {tau:.3g}, not 0)")
    system = ExtendedSystem(step, jacobian, par, (first, second), kind, points.shape)
    z0 = np.append(points.ravel(), [par[first], par[second]])
    fix_second = np.zeros_like(z0)
    fix_second[-1] = 1.0
    corrected = system.correct(z0, fix_second, 0.0)  # Newton with α_2 held at the start's value
    if corrected is None:
        raise AnalysisError("start: the extended system does not converge from this point")
    z0 = corrected[0]
    max_step = (hi - lo) / 25 if max_step is None else float(max_step)
    pieces = []
    for direction in (-1.0, 1.0):
        seed = np.zeros_like(z0)
        seed[-1] = direction
        t = system.tangent(z0, seed / system.weights)
        pieces.append(_trace(system, z0, t, (lo, hi), period, max_step, max_points))
    (zs_down, mus_down, sp_down), (zs_up, mus_up, sp_up) = pieces
    zs = zs_down[::-1] + [z0] + zs_up
    mus = mus_down[::-1] + [multipliers(corrected[1])] + mus_up
    mus = np.array(mus)
    zs = np.array(zs)
    neutral = np.zeros(len(zs), dtype=bool)
    if kind == "neimark_sacker":
        neutral = np.array([abs(critical_pair(m)[0].imag) <= 1e-8 * max(1.0, abs(m[0])) for m in mus])
    return Curve(kind=kind, period=period, parameters=(first, second), values=zs[:, -2:],
                 points=zs[:, :-2].reshape(len(zs), *points.shape), multipliers=mus, neutral_saddle=neutral,
                 special=sp_down[::-1] + sp_up)
