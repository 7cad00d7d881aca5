"""Periodic orbits of maps and their Floquet multipliers (docs/bifurcations.md §1).

A period-p orbit of a map F is a fixed point of F^p. It is computed by Newton's method in the *multiple
shooting* form: the unknowns are the p points x_0 … x_{p−1} of the orbit, the equations

    G_i = F_i(x_i) − x_{(i+1) mod p} = 0,  i = 0 … p−1,

and the Jacobian of G is block-cyclic (J_i = ∂F_i/∂x at x_i on the diagonal, −I beside it). Unlike single
shooting on F^p(x) = x, whose Jacobian is the product of p Jacobians, nothing here multiplies Jacobians: for
long periods of a stiff map (the sharp softmax of the attention map contracts some directions by 1e−40 in one
step) the product under- or overflows, the block-cyclic system does not. Steps are damped by backtracking on
the residual's norm. F_i may depend on i: a map forced with period L (the positional encoding of the attention
model) is handled by giving each phase its own F_i, as long as p is a multiple of L.

The multipliers are the eigenvalues of the monodromy matrix M = J_{p−1} ⋯ J_0. The product is accumulated
with each factor's scale taken out (M = e^s · M̃, M̃ of unit largest entry), so it never over- or underflows;
the accuracy of a multiplier is then about ε·max|μ| (ε the float64 unit round-off) times its condition
number. Multipliers far below the largest lose digits, which does not matter for the tests of stability and
bifurcation as long as the largest ones are O(1) — the case on a branch that is stable or weakly unstable
(docs/bifurcations.md §4 states the limit).

The map is given as numba functions with the convention of :func:`~meanfield.analysis.lyapunov_spectrum`:
``step(x, params, out)`` and ``jacobian(x, params, out)``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numba as nb
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from meanfield.analysis._input import as_series
from meanfield.compiled_cache import cached_jit
from meanfield.errors import AnalysisError
from meanfield.short_repr import short_repr

#: Newton stops when the largest residual entry is below TOLERANCE times the orbit's scale max(1, max|x|):
#: a few hundred ulps of the points, the level the map's own rounding allows.
TOLERANCE = 1e-12
MAX_NEWTON = 40


@short_repr
@dataclass(frozen=True)
class PeriodicOrbit:
    """A periodic orbit and its multipliers.

    Attributes
    ----------
    points : numpy.ndarray, shape (period, n)
        The orbit's points, ``points[i + 1] = F_i(points[i])`` (cyclically).
    residual : float
        Largest entry of F_i(x_i) − x_{i+1} over the orbit.
    multipliers : numpy.ndarray, shape (n,), complex
        Eigenvalues of the monodromy matrix, by decreasing modulus.
    stable : bool
        Every multiplier has modulus < 1.
    iterations : int
        Newton iterations used.
    """

    points: np.ndarray
    residual: float
    multipliers: np.ndarray
    stable: bool
    iterations: int

    @property
    def period(self) -> int:
        return self.points.shape[0]


@cached_jit()
def _images(step, jacobian, points, params, images, jacobians):
    for i in range(points.shape[0]):
        step(points[i], params, images[i])
        jacobian(points[i], params, jacobians[i])


def numba_family(step, jacobian, params: np.ndarray, parameter_index: int | None = None):
    """The maps of an autonomous system given as numba ``step``/``jacobian`` functions, as a *family*:
    ``family(value)`` is the map at ``params[parameter_index] = value`` (``params`` unchanged when
    ``parameter_index`` is None), an ``evaluate(points, with_images=True) -> (images, jacobians)`` with
    ``images[i] = F(points[i])`` and ``jacobians[i] = ∂F/∂x(points[i])`` (a family may skip the images, and
    return None for them, when ``with_images`` is False). Newton, the multipliers and the continuation only
    ever see such functions; a model with a phase-dependent map builds its own family."""
    for name, fn in (("step", step), ("jacobian", jacobian)):
        if not isinstance(fn, nb.core.dispatcher.Dispatcher):
            raise AnalysisError(f"{name}: {fn!r} is not a numba @njit function")

    def family(value=None):
        par = params.copy()
        if parameter_index is not None:
            par[parameter_index] = value

        def evaluate(points, with_images=True):
            p, n = points.shape
            images, jacobians = np.empty((p, n)), np.empty((p, n, n))
            try:
                _images(step, jacobian, points, par, images, jacobians)
            except nb.core.errors.TypingError as exc:
                raise AnalysisError(
                    "step/jacobian: numba could not compile them as step(x, params, out) and jacobian(x, "
                    f"params, out) with float64 arrays: {str(exc).splitlines()[0]}") from None
            return images, jacobians

        return evaluate

    return family


def shooting_matrix(jacobians: np.ndarray) -> sp.csc_matrix:
    """∂G/∂(x_0 … x_{p−1}) of the multiple-shooting equations: J_i on the diagonal, −I at block (i, i+1) (built
    from index arrays: one call, whatever p; the structural zeros of J_i are left out)."""
    p, n, _ = jacobians.shape
    offsets = np.arange(p)[:, None, None] * n
    rows = np.broadcast_to(offsets + np.arange(n)[None, :, None], jacobians.shape)
    cols = np.broadcast_to(offsets + np.arange(n)[None, None, :], jacobians.shape)
    kept = jacobians != 0.0
    shift_cols = ((np.arange(p)[:, None] + 1) % p * n + np.arange(n)[None, :]).ravel()
    data = np.concatenate([jacobians[kept], -np.ones(p * n)])
    index = (np.concatenate([rows[kept], np.arange(p * n)]), np.concatenate([cols[kept], shift_cols]))
    return sp.csc_matrix((data, index), shape=(p * n, p * n))


def solve(matrix: sp.spmatrix, rhs: np.ndarray) -> np.ndarray:
    """``matrix⁻¹ rhs`` by sparse LU; NaN entries when the matrix is singular to working precision."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spla.MatrixRankWarning)
        return spla.spsolve(matrix, rhs)


def residuals(points: np.ndarray, images: np.ndarray) -> np.ndarray:
    """G_i = F_i(x_i) − x_{i+1}, shape (p, n)."""
    return images - np.roll(points, -1, axis=0)


def multipliers(jacobians: np.ndarray) -> np.ndarray:
    """Eigenvalues of J_{p−1} ⋯ J_0 by decreasing modulus, the product rescaled at every factor (module
    docstring)."""
    n = jacobians.shape[1]
    product, log_scale = np.eye(n), 0.0
    for jac in jacobians:
        product = jac @ product
        scale = np.abs(product).max()
        if not np.isfinite(scale):
            raise AnalysisError("the monodromy matrix is not finite: a Jacobian along the orbit is NaN/inf")
        if scale == 0.0:
            return np.zeros(n, dtype=complex)
        product /= scale
        log_scale += np.log(scale)
    mu = np.linalg.eigvals(product) * np.exp(log_scale)
    return mu[np.argsort(-np.abs(mu), kind="stable")]


def newton_orbit(evaluate, points: np.ndarray, tol: float = TOLERANCE, max_iter: int = MAX_NEWTON):
    """Damped multiple-shooting Newton from ``points`` (p, n), ``evaluate`` one map of a family
    (:func:`numba_family`). Returns ``(points, images, jacobians,
    residual, iterations)``; raises :class:`AnalysisError` when it does not converge."""
    points = np.array(points, dtype=np.float64)
    images, jacobians = evaluate(points)
    res = residuals(points, images)
    norm = np.abs(res).max()
    for iteration in range(max_iter + 1):
        if not np.isfinite(norm):
            raise AnalysisError("the orbit became NaN or infinite during Newton's iteration")
        if norm <= tol * max(1.0, np.abs(points).max()):
            return points, images, jacobians, float(norm), iteration
        if iteration == max_iter:
            break
        delta = solve(shooting_matrix(jacobians), -res.ravel()).reshape(points.shape)
        if not np.all(np.isfinite(delta)):
            raise AnalysisError("Newton's matrix is singular: the orbit is at a bifurcation, or there is no "
                                "orbit of this period here")
        # backtracking: halve the step until the residual decreases (Armijo on the max norm)
        for _ in range(30):
            trial = points + delta
            trial_images, trial_jacobians = evaluate(trial)
            trial_res = residuals(trial, trial_images)
            trial_norm = np.abs(trial_res).max()
            if np.isfinite(trial_norm) and trial_norm < norm:
                break
            delta /= 2
        else:
            break
        points, images, jacobians, res, norm = trial, trial_images, trial_jacobians, trial_res, trial_norm
    raise AnalysisError(f"Newton's iteration did not converge (residual {norm:.3g} after {iteration} "
                        "iterations): start closer to the orbit or check the period")


def orbit_from(evaluate, points: np.ndarray, tol: float = TOLERANCE) -> PeriodicOrbit:
    """:func:`newton_orbit` packed as a :class:`PeriodicOrbit`."""
    points, _, jacobians, residual, iterations = newton_orbit(evaluate, points, tol)
    mu = multipliers(jacobians)
    return PeriodicOrbit(points=points, residual=residual, multipliers=mu, stable=bool(np.abs(mu).max() < 1),
                         iterations=iterations)


def iterate_points(step, x0: np.ndarray, period: int, params: np.ndarray) -> np.ndarray:
    """x0, F(x0), …, F^{p−1}(x0): the multiple-shooting start of an autonomous map."""
    points = np.empty((period, x0.size))
    points[0] = x0
    for i in range(1, period):
        step(points[i - 1], params, points[i])
    return points


def check_period(period) -> int:
    if isinstance(period, bool) or not isinstance(period, int | np.integer) or period < 1:
        raise AnalysisError(f"period: {period!r}; must be a positive integer")
    return int(period)


def periodic_orbit(step, jacobian, x0, period: int, params=None, *, tol: float = TOLERANCE) -> PeriodicOrbit:
    """The period-``period`` orbit of the map through (or near) ``x0``, by damped multiple-shooting Newton.

    Parameters
    ----------
    step, jacobian : numba ``@njit`` functions
        ``step(x, params, out)`` and ``jacobian(x, params, out)`` as for
        :func:`~meanfield.analysis.lyapunov_spectrum`.
    x0 : array_like, 1-D
        A point on or near the orbit; Newton starts from x0, F(x0), …, F^{p−1}(x0).
    period : int
        The orbit's period p (the fixed point of F^p that is sought).
    params : array_like, optional
        float64 parameters passed to ``step`` and ``jacobian``.
    tol : float
        Newton stops when max|F(x_i) − x_{i+1}| ≤ tol·max(1, max|x|).

    Returns
    -------
    PeriodicOrbit
        Points, residual, multipliers (eigenvalues of the monodromy matrix, docs/bifurcations.md §1) and
        stability.

    Raises
    ------
    AnalysisError
        Bad arguments, or Newton's iteration does not converge.
    """
    x = as_series(x0, name="x0")
    par = np.zeros(0) if params is None else as_series(params, name="params", min_length=0)
    evaluate = numba_family(step, jacobian, par)()
    return orbit_from(evaluate, iterate_points(step, x, check_period(period), par), tol)
