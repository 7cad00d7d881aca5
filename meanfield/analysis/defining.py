"""The scalar g of the minimally extended system of a fold, period-doubling or Neimark–Sacker cycle, and its
gradient with respect to the monodromy (docs/bifurcations.md §8; Kuznetsov, *Elements of Applied Bifurcation
Theory*, 3rd ed. 2004, §10.2): g_F = det(M − I), g_PD = det(M + I), g_NS = det(M ⊙ M − I) = Π_{i<j}(μ_i μ_j − 1).
"""
from __future__ import annotations

from functools import cache

import numpy as np


@cache
def _pairs(n: int):
    return np.triu_indices(n, k=1)


def defining(kind: str, m: np.ndarray) -> np.ndarray:
    """The scalar g of the extended system (module docstring) of the monodromy ``m`` (n, n), or of each of a
    stack of them (…, n, n)."""
    identity = np.eye(m.shape[-1])
    if kind == "fold":
        return np.linalg.det(m - identity)
    if kind == "period_doubling":
        return np.linalg.det(m + identity)
    mu = np.linalg.eigvals(m)
    i, j = _pairs(m.shape[-1])
    return np.prod(mu[..., i] * mu[..., j] - 1, axis=-1).real


def defining_gradient(kind: str, m: np.ndarray) -> np.ndarray:
    """G = ∂g/∂M (n, n) of :func:`defining`'s g at the monodromy ``m``, G_ab = ∂g/∂M_ab. fold and period
    doubling: g = det(A), A = M ∓ I, and G is the transposed adjugate, det(U) det(V) U diag(Π_{j≠i} σ_j) Vᵀ
    from A = U diag(σ) Vᵀ (finite where A is singular, as on the curve). Neimark–Sacker: g = Π_{i<j}(μ_i μ_j − 1)
    and ∂μ_i/∂M_ab = (V⁻¹)_ia V_bi for M = V diag(μ) V⁻¹, so G = (V diag(c) V⁻¹)ᵀ with
    c_i = ∂g/∂μ_i = Σ_{j≠i} μ_j Π_{(k,l)≠(i,j)} (μ_k μ_l − 1)."""
    n = m.shape[0]
    if kind in ("fold", "period_doubling"):
        u, sigma, vt = np.linalg.svd(m - np.eye(n) if kind == "fold" else m + np.eye(n))
        others = np.prod(np.where(np.eye(n, dtype=bool), 1.0, sigma), axis=1)    # Π_{j≠i} σ_j
        return np.linalg.det(u) * np.linalg.det(vt) * (u * others) @ vt
    mu, vectors = np.linalg.eig(m)
    factors = np.outer(mu, mu) - 1                                   # f_ij = μ_i μ_j − 1, symmetric
    upper = _pairs(n)
    smallest = np.argmin(np.abs(factors[upper]))                     # the critical pair's factor, ~0 on the curve
    a, b = upper[0][smallest], upper[1][smallest]
    rest = np.prod(np.delete(factors[upper], smallest))              # Π over the other pairs
    with np.errstate(divide="ignore", invalid="ignore"):
        without = rest * factors[a, b] / factors                     # Π_{(k,l)≠(i,j)} f_kl, i ≠ j
    without[a, b] = without[b, a] = rest
    np.fill_diagonal(without, 0.0)
    c = without @ mu
    return ((vectors * c) @ np.linalg.inv(vectors)).T.real
