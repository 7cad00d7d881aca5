"""Critical normal-form coefficients of period doubling and Neimark–Sacker of a period-p cycle of a map
(docs/bifurcations.md §9, "Normal forms").

A period-p cycle x_0 … x_{p−1} is a fixed point of the p-th iterate F = f_{p−1} ∘ ⋯ ∘ f_0 (f_k the map of
phase k, :mod:`.orbits`) with Jacobian the monodromy M = J_{p−1} ⋯ J_0. With the multilinear forms B, C of F's
Taylor expansion at x_0, a critical eigenvector q (⟨q, q⟩ = 1) and the adjoint p (Mᵀ p = μ̄ p, ⟨p, q⟩ = 1,
⟨a, b⟩ = āᵀ b), the coefficients are those of Kuznetsov, *Elements of Applied Bifurcation Theory*, 3rd ed.
2004, §5.4 (n-dimensional reduction of §4.4 and §4.6–4.7), in the form used for cycles of maps by Kuznetsov &
Meijer (SIAM J. Sci. Comput. 26, 2005) and MatContM (Govaerts, Kuznetsov, Khoshsiar Ghaziani & Meijer):

* period doubling, μ = −1, centre-manifold map η ↦ −η + c η³:
  c = (1/6) ⟨p, C(q, q, q) + 3 B(q, (I − M)⁻¹ B(q, q))⟩; supercritical (a stable 2p-cycle is born) if c > 0;
* Neimark–Sacker, μ = e^{iθ}, normal form z ↦ e^{iθ} z (1 + d |z|²):
  c₁ = ½ ⟨p, C(q, q, q̄) + 2 B(q, (I − M)⁻¹ B(q, q̄)) + B(q̄, (e^{2iθ} I − M)⁻¹ B(q, q))⟩,
  the first Lyapunov coefficient l₁ = Re(e^{−iθ} c₁); supercritical (a stable invariant curve) if l₁ < 0.

B and C of the iterate follow from those of the phase maps by the chain rule along the cycle: with
u_k = J_{k−1} ⋯ J_0 u and D²_k, D³_k the derivatives of the partial iterate f_{k−1} ∘ ⋯ ∘ f_0,

    D²_{k+1}(u, v)    = B_k(u_k, v_k) + J_k D²_k(u, v),
    D³_{k+1}(u, v, w) = C_k(u_k, v_k, w_k) + B_k(D²_k(u, v), w_k) + B_k(D²_k(u, w), v_k)
                        + B_k(D²_k(v, w), u_k) + J_k D³_k(u, v, w),

so nothing is differentiated over more than one step. B_k(u_k, ·) and C_k(u_k, u_k, ·) are the first and second
directional derivatives of the phase map's Jacobian J_k along u_k (scaled to unit length), central differences
with step h = STEP · max(1, max|x|): truncation h²·|∂⁴f|/6 and h²·|∂⁵f|/12, rounding ε|J|/h and 4ε|J|/h²,
i.e. about 1e−9 and 1e−8 relative for STEP = 1e−4 (exact up to rounding for maps of degree ≤ 3, whose J is at
most quadratic). Complex directions are split by linearity and polarisation:
C(a, a, ·) = C(a_r, a_r, ·) − C(a_i, a_i, ·) + 2i C(a_r, a_i, ·), C(a_r, a_i, ·) = [C(a_r + a_i)² − C(a_r − a_i)²]/4.
Cost: 3 (period doubling) or 9 (Neimark–Sacker) evaluations of the cycle's Jacobians.
"""

from __future__ import annotations

import numpy as np

from meanfield.errors import AnalysisError

#: Relative step of the central differences of the Jacobian (module docstring).
STEP = 1e-4
#: The bifurcations that have a coefficient here, and the sign of it that means supercritical.
SUPERCRITICAL_SIGN = {"period_doubling": 1.0, "neimark_sacker": -1.0}


def criticality(kind: str, coefficient: float | None) -> str | None:
    """"supercritical", "subcritical" or "degenerate" (coefficient 0) for ``kind``'s coefficient (module
    docstring); None for a fold or a missing coefficient."""
    if kind not in SUPERCRITICAL_SIGN or coefficient is None or not np.isfinite(coefficient):
        return None
    if coefficient == 0:
        return "degenerate"
    return "supercritical" if coefficient * SUPERCRITICAL_SIGN[kind] > 0 else "subcritical"


def monodromy(jacobians: np.ndarray) -> np.ndarray:
    """J_{p−1} ⋯ J_0, unscaled (the linear solves and determinants need M itself; fine while the
    multipliers are moderate)."""
    product = np.eye(jacobians.shape[1])
    for jac in jacobians:
        product = jac @ product
    return product


def tangents(jacobians: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """u_k = J_{k−1} ⋯ J_0 u for k = 0 … p−1 (the vector carried along the cycle)."""
    out = np.empty((len(jacobians), vector.size), dtype=np.result_type(vector, jacobians))
    out[0] = vector
    for k in range(1, len(jacobians)):
        out[k] = jacobians[k - 1] @ out[k - 1]
    return out


def jacobian_derivatives(evaluate, points: np.ndarray, directions: np.ndarray, step: float = STEP):
    """(B_k(u_k, ·), C_k(u_k, u_k, ·)) as (p, n, n) matrices for the directions u_k (p, n), real or complex:
    central differences of the Jacobians returned by ``evaluate`` (module docstring)."""
    scales = np.linalg.norm(directions, axis=1)
    scales[scales == 0] = 1.0
    unit = directions / scales[:, None]
    h = step * max(1.0, float(np.abs(points).max()))
    _, centre = evaluate(points, with_images=False)

    def along(v):
        _, plus = evaluate(points + h * v, with_images=False)
        _, minus = evaluate(points - h * v, with_images=False)
        return (plus - minus) / (2 * h), (plus - 2 * centre + minus) / h ** 2

    first, second = along(unit.real)
    if np.any(unit.imag):
        first_im, second_im = along(unit.imag)
        _, plus = along(unit.real + unit.imag)
        _, minus = along(unit.real - unit.imag)
        first = first + 1j * first_im
        second = second - second_im + 0.5j * (plus - minus)
    return first * scales[:, None, None], second * scales[:, None, None] ** 2


def eigenvectors(m: np.ndarray, mu: complex) -> tuple[np.ndarray, np.ndarray]:
    """q with M q = μ q, ⟨q, q⟩ = 1, and p with Mᵀ p = μ̄ p, ⟨p, q⟩ = 1 (μ the eigenvalue of M nearest ``mu``)."""
    values, vectors = np.linalg.eig(m)
    q = vectors[:, np.argmin(np.abs(values - mu))]
    values, vectors = np.linalg.eig(m.T)
    p = vectors[:, np.argmin(np.abs(values - np.conj(mu)))]
    overlap = np.vdot(p, q)
    if abs(overlap) < 1e-12:
        raise AnalysisError("the critical eigenvalue is not simple (⟨p, q⟩ = 0): no normal form")
    return q / np.linalg.norm(q), p / np.conj(overlap)


def _carry(jacobians, matrices, vectors):
    """Σ_k J_{p−1} ⋯ J_{k+1} matrices_k vectors_k: B of the iterate from the phase maps' B_k (chain rule)."""
    out = np.zeros(jacobians.shape[1], dtype=complex)
    for jac, mat, vec in zip(jacobians, matrices, vectors):
        out = jac @ out + mat @ vec
    return out


def _flip(evaluate, points, jacobians, m, step):
    q, p = eigenvectors(m, -1.0)
    q, p = q.real / np.linalg.norm(q.real), p.real * np.linalg.norm(q.real)  # M real, μ = −1: real vectors
    u = tangents(jacobians, q)
    b, c = jacobian_derivatives(evaluate, points, u, step)
    second, third = np.zeros(q.size), np.zeros(q.size)
    for k, jac in enumerate(jacobians):
        third = jac @ third + c[k] @ u[k] + 3 * b[k] @ second
        second = jac @ second + b[k] @ u[k]
    h2 = np.linalg.solve(np.eye(q.size) - m, second)
    mixed = _carry(jacobians, b, tangents(jacobians, h2)).real
    return float(p @ (third + 3 * mixed)) / 6


def _torus(evaluate, points, jacobians, m, mu, step):
    rotation = mu / abs(mu)
    q, p = eigenvectors(m, mu)
    u = tangents(jacobians, q)
    b, c = jacobian_derivatives(evaluate, points, u, step)
    size = q.size
    qq, qqbar, third = (np.zeros(size, dtype=complex) for _ in range(3))
    for k, jac in enumerate(jacobians):
        third = jac @ third + c[k] @ u[k].conj() + 2 * b[k] @ qqbar + b[k].conj() @ qq
        qq, qqbar = jac @ qq + b[k] @ u[k], jac @ qqbar + b[k] @ u[k].conj()
    h20 = np.linalg.solve(rotation ** 2 * np.eye(size) - m, qq)
    h11 = np.linalg.solve(np.eye(size) - m, qqbar)
    mixed = 2 * _carry(jacobians, b, tangents(jacobians, h11)) + _carry(jacobians, b.conj(), tangents(jacobians, h20))
    c1 = 0.5 * np.vdot(p, third + mixed)
    return float((np.conj(rotation) * c1).real)


def normal_form_coefficient(kind: str, evaluate, points: np.ndarray, jacobians: np.ndarray,
                            mu: complex | None = None, step: float = STEP) -> float | None:
    """The critical normal-form coefficient of a cycle at a bifurcation of ``kind`` (module docstring).

    Parameters
    ----------
    kind : str
        "period_doubling" (returns c) or "neimark_sacker" (returns l₁); "fold" returns None.
    evaluate : ~collections.abc.Callable
        ``evaluate(points, with_images=True) -> (images, jacobians)``, one map of a family
        (:func:`.orbits.numba_family`); only its Jacobians are used.
    points, jacobians : numpy.ndarray
        The cycle (p, n) and its Jacobians (p, n, n) there.
    mu : complex, optional
        Neimark–Sacker: the critical multiplier (default the eigenvalue with Im μ > 0 and |μ| nearest 1).
    step : float
        Relative step of the central differences.

    Returns
    -------
    float or None
        NaN where the coefficient is undefined: I − M singular (a fold–flip; the 1:1 resonance) or
        e^{2iθ}I − M singular (the 1:3 resonance), where the normal form is another one (Kuznetsov §9.5).
    """
    if kind == "fold":
        return None
    if kind not in SUPERCRITICAL_SIGN:
        raise AnalysisError(f"kind = {kind!r} is not allowed: 'fold', {', '.join(map(repr, SUPERCRITICAL_SIGN))}")
    m = monodromy(jacobians)
    if kind == "neimark_sacker" and mu is None:
        values = np.linalg.eigvals(m)
        upper = values[values.imag > 0]
        if upper.size == 0:
            return None                                   # a neutral saddle: no complex critical pair
        mu = upper[np.argmin(np.abs(np.abs(upper) - 1))]
    try:
        if kind == "period_doubling":
            return _flip(evaluate, points, jacobians, m, step)
        return _torus(evaluate, points, jacobians, m, complex(mu), step)
    except np.linalg.LinAlgError:
        return np.nan      # I − M or e^{2iθ}I − M singular: a fold–flip, or the 1:1 or 1:3 resonance
