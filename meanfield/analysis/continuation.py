"""Pseudo-arclength continuation (Keller 1977; docs/bifurcations.md §2 and §8): the package's one
predictor–corrector, of which a branch of periodic orbits in one parameter (:mod:`.bifurcations`) and a
codim-1 curve in two parameters on the minimally extended system (:mod:`.curves`) are two problems.

A *problem* has k equations H(z) = 0 in k + 1 unknowns z (the last entry a parameter, shown to progress
displays) and says

* ``name`` (for messages), ``weights`` w of the inner product ⟨a, b⟩_w = Σ w_i a_i b_i in which arclength is
  measured, ``iterations`` (most Newton steps of one correction);
* ``system(z)`` → (H(z), its k × (k + 1) Jacobian, the orbit's Jacobians at z) and ``residual(z)`` → (H(z), the
  orbit's Jacobians) without the Jacobian of H (for chord iterations);
* ``converged(h, z, jacobians)``, whether H(z) = h is zero to the problem's tolerance;
* ``bordered_solve(matrix, row, rhs)``: the solution of [matrix; row] u = rhs (sparse or dense as the problem's
  matrix is; None when it is singular).

From z_k with unit tangent t_k the predictor is z_k + s·t_k and the corrector Newton on [H(z) = 0,
⟨t_k, z − z_k⟩_w = s]; the tangent at z solves [∂H(z); ⟨previous, ·⟩_w] t = e_last and is normalised in the same
inner product, so it keeps the orientation of ``previous``.
"""
from __future__ import annotations

import numpy as np

from meanfield.errors import AnalysisError


class Continuation:
    """The predictor–corrector on ``problem`` (module docstring); ``on_iterate``, if given, is called with the
    last unknown (the parameter) of every Newton iterate (progress displays)."""

    def __init__(self, problem, on_iterate=None):
        self.problem = problem
        self.weights = problem.weights
        self.on_iterate = (lambda value: None) if on_iterate is None else on_iterate

    def unit(self, t: np.ndarray) -> np.ndarray:
        return t / np.sqrt(t @ (self.weights * t))

    def tangent(self, z: np.ndarray, previous, matrix=None) -> np.ndarray:
        """Unit tangent at z oriented along ``previous`` (a vector, or +1/−1 for the direction of the last
        unknown); ``matrix`` the problem's Jacobian at z when it is at hand."""
        matrix = self.problem.system(z)[1] if matrix is None else matrix
        row = self.weights * previous if np.ndim(previous) else np.eye(z.size)[-1] * previous
        rhs = np.zeros(z.size)
        rhs[-1] = 1.0
        t = self.problem.bordered_solve(matrix, row, rhs)
        if t is None or not np.all(np.isfinite(t)):
            raise AnalysisError(f"the {self.problem.name}'s tangent is undefined (singular extended system)")
        return self.unit(t)

    def correct(self, z0: np.ndarray, t0: np.ndarray, s: float, chord=None, chord_steps: int = 0):
        """The point at arclength ``s`` from z0 along t0: ``(z, jacobians)``, or None when Newton fails. Given
        ``chord`` (the problem's Jacobian at z0) the first ``chord_steps`` iterations reuse it (the chord method:
        one evaluation of H per iteration), then Newton proper; the accepted point satisfies the same test."""
        z = z0 + s * t0
        row = self.weights * t0
        for iteration in range(self.problem.iterations):
            self.on_iterate(float(z[-1]))
            if chord is None or iteration >= chord_steps:
                h, matrix, jacobians = self.problem.system(z)
            else:
                (h, jacobians), matrix = self.problem.residual(z), chord
            if not np.all(np.isfinite(h)):
                return None
            if self.problem.converged(h, z, jacobians):
                return z, jacobians
            step = self.problem.bordered_solve(matrix, row, -np.append(h, row @ (z - z0) - s))
            if step is None:
                return None
            z = z + step
        return None

    def distance(self, a: np.ndarray, b: np.ndarray) -> float:
        """|a − b| in the weighted norm."""
        d = a - b
        return float(np.sqrt(d @ (self.weights * d)))


__all__ = ["Continuation"]
