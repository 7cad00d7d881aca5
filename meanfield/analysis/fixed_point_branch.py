"""A fixed point of a map family followed in its parameter by pseudo-arclength continuation, every step checked
to stay on the same branch (docs/onset.md §2); the events of its stability along it are
:mod:`.stability_events`.

The map comes as ``family(x, value, derivatives=True) -> (F(x), ∂F/∂x, ∂F/∂λ)`` (with ``derivatives=False`` the
two derivatives may be None). The branch {(x, λ) : G(x, λ) = F(x, λ) − x = 0} is followed by the package's
pseudo-arclength continuation (:class:`.continuation.Continuation`, docs/bifurcations.md §2) — never by steps in
λ, which jump to a neighbouring fixed point where the branch bends — and every step is checked to stay on the same
branch before it is accepted (:meth:`FixedPointBranch.advance`), and sampled into every dip of the margin
1 − max|μ| (:meth:`FixedPointBranch.follow`). A root of a function of the branch points is located by Brent's
method on the arclength of the step that brackets it (every evaluation a branch point corrected on the step's
hyperplane), a minimum by bounded Brent minimisation over the two steps around it.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgWarning, lu_factor, lu_solve
from scipy.optimize import minimize_scalar

from meanfield.analysis.bifurcations import root_on_step
from meanfield.analysis.continuation import Continuation
from meanfield.errors import AnalysisError

#: Newton stops at max|G| ≤ TOLERANCE · max(1, max|x|).
TOLERANCE = 1e-14
#: Above this dimension only the leading multipliers are computed (ARPACK) instead of all of them.
DENSE_LIMIT = 128
#: A multiplier with |Im μ| below this is real.
REAL_TOLERANCE = 1e-6
#: Step acceptance: the corrector moves the point at most this fraction of the step from the predictor, and
#: consecutive tangents differ by at most this angle (radians) ...
MAX_CORRECTION, MAX_ANGLE = 0.25, 0.2
#: ... and the leading modulus changes by at most this much, so that no crossing is stepped over.
MAX_MODULUS_CHANGE = 0.05
#: Below this arclength a step across which the orientation changes is taken as passing a branch point; above
#: it the step is halved (a near-crossing that a shorter step follows round is no branch point).
BRANCH_STEP = 1e-7
#: Arclength resolution of the located roots (λ is then exact to ≲ this: |dλ/ds| ≤ 1, and quadratically better
#: at a turning point).
ROOT_RESOLUTION = 1e-11
#: The smallest step the approach to a small margin forces (:meth:`FixedPointBranch.follow`).
APPROACH_STEP = 1e-6
#: At most this many refollowings of a crossover's steps before its minimum is located.
REFINEMENTS = 8


def leading_multipliers(jacobian: np.ndarray, count: int = 6) -> np.ndarray:
    """The multipliers (eigenvalues of ``jacobian``) by decreasing modulus: all of them up to :data:`DENSE_LIMIT`,
    the ``count`` largest by ARPACK above."""
    if jacobian.shape[0] <= DENSE_LIMIT:
        mu = np.linalg.eigvals(jacobian)
    else:
        from scipy.sparse.linalg import ArpackNoConvergence, eigs
        try:
            mu = eigs(jacobian, k=count, which="LM", return_eigenvectors=False, tol=1e-13)
        except ArpackNoConvergence:
            mu = np.linalg.eigvals(jacobian)
    return mu[np.argsort(-np.abs(mu), kind="stable")]


@dataclass(frozen=True)
class BranchPoint:
    """A corrected point of the branch: ``z`` = (x, λ), its ``multipliers`` by decreasing modulus, the matrix
    [∂G/∂x | ∂G/∂λ] and its unit ``tangent`` oriented along the continuation (None where it was not needed: at
    a branch point it does not exist), with the ``orientation`` sign det[∂G; tangent]: constant along a branch, it
    changes only across a branch point (or where a step jumps across a near-crossing to another branch)."""

    z: np.ndarray
    multipliers: np.ndarray
    matrix: np.ndarray
    tangent: np.ndarray | None
    orientation: float = 0.0

    @property
    def value(self) -> float:
        return float(self.z[-1])

    @property
    def state(self) -> np.ndarray:
        return self.z[:-1]

    @property
    def margin(self) -> float:
        """1 − max|μ|: positive while the fixed point is stable."""
        return 1.0 - float(np.abs(self.multipliers[0]))

    @property
    def leads_real_positive(self) -> bool:
        mu = self.multipliers[0]
        return bool(abs(mu.imag) <= REAL_TOLERANCE and mu.real > 0)


class FixedPointProblem:
    """G(x, λ) = F(x, λ) − x as a problem of :class:`.continuation.Continuation` (module docstring); its
    "jacobians" are (∂F/∂x, [∂G/∂x | ∂G/∂λ])."""

    name = "fixed-point branch"
    iterations = 10

    def __init__(self, family, size: int, tol: float = TOLERANCE):
        self.family, self.size, self.tol = family, size, tol
        self.weights = np.append(np.full(size, 1.0 / size), 1.0)
        self._factors = None

    def system(self, z):
        image, d_state, d_value = self.family(z[:-1], z[-1])
        matrix = np.hstack([d_state - np.eye(self.size), d_value.reshape(-1, 1)])
        return image - z[:-1], matrix, (d_state, matrix)

    def determinant_sign(self) -> float:
        """The sign of the determinant of the bordered matrix last factored: for a tangent's [∂G; ⟨previous, ·⟩_w]
        the sign of det[∂G; tangent] (t = cofactors / that determinant, Cramer's rule)."""
        lu, pivots = self._factors[1]
        swaps = np.count_nonzero(pivots != np.arange(pivots.size))
        return float(np.prod(np.sign(np.diag(lu))) * (-1) ** swaps)

    def residual(self, z):
        image, _, _ = self.family(z[:-1], z[-1], derivatives=False)
        return image - z[:-1], None

    def converged(self, g, z, jacobians) -> bool:
        return bool(np.abs(g).max() <= self.tol * max(1.0, np.abs(z[:-1]).max()))

    def bordered_solve(self, matrix, row, rhs):
        """[matrix; row]⁻¹ rhs by dense LU, the factors kept while the same matrix and row come back (the chord
        iterations of one correction); None when singular."""
        key = (id(matrix), row.tobytes())
        if self._factors is None or self._factors[0] != key:
            with warnings.catch_warnings():               # a singular matrix is answered by None below
                warnings.simplefilter("ignore", LinAlgWarning)
                factors = lu_factor(np.vstack([matrix, row]), check_finite=False)
            if not np.all(np.abs(np.diag(factors[0])) > 0):
                return None
            self._factors = (key, factors, matrix)            # the matrix is held so that its id stays its own
        return lu_solve(self._factors[1], rhs, check_finite=False)


class FixedPointBranch:
    """The continuation of one fixed point of ``family`` (module docstring) with its acceptance checks."""

    def __init__(self, family, size: int, *, max_step: float, on_iterate=None):
        self.problem = FixedPointProblem(family, size)
        self.engine = Continuation(self.problem, on_iterate)
        self.max_step, self.min_step = max_step, max_step * 1e-7
        self.evaluations = 0

    def _point(self, z, jacobians, previous=None) -> BranchPoint:
        """The BranchPoint at a corrected z, with its tangent oriented along ``previous`` unless that is None."""
        if jacobians is None:                              # accepted on a chord iteration: linearise there
            _, _, jacobians = self.problem.system(z)
        self.evaluations += 1
        d_state, matrix = jacobians
        if previous is None:
            return BranchPoint(z, leading_multipliers(d_state), matrix, None)
        tangent = self.engine.tangent(z, previous, matrix)
        return BranchPoint(z, leading_multipliers(d_state), matrix, tangent, self.problem.determinant_sign())

    def start(self, state, value: float, direction: float) -> BranchPoint | None:
        """The fixed point at ``value`` by Newton from ``state`` (None when it does not converge), its tangent
        oriented towards increasing (``direction`` +1) or decreasing (−1) λ."""
        z = np.append(np.asarray(state, dtype=np.float64).ravel(), float(value))
        corrected = self.engine.correct(z, np.eye(z.size)[-1], 0.0)
        return None if corrected is None else self._point(*corrected, float(direction))

    def advance(self, point: BranchPoint, h: float) -> tuple[BranchPoint, float]:
        """The next point from ``point`` with a step ≤ ``h`` and the step taken. A trial is corrected by chord
        iterations (the Jacobian at ``point``), then, where that is not accepted, by Newton proper; it is accepted
        only when the corrector stays near the predictor, the tangent turns little, the leading modulus moves
        little and the orientation keeps its sign unless the step is already below :data:`BRANCH_STEP` (module
        constants): a corrector that lands on another branch fails these, and the step is halved."""
        while h >= self.min_step:
            for chord_steps in (self.problem.iterations, 0):
                candidate = self._trial(point, h, chord_steps)
                if candidate is not None:
                    return candidate, h
            h /= 2
        raise AnalysisError(f"the {self.problem.name} cannot be followed past λ = {point.value:.9g}: no step down "
                            f"to {self.min_step:.1e} stays on it")

    def _trial(self, point: BranchPoint, h: float, chord_steps: int) -> BranchPoint | None:
        """The corrected point at arclength ``h`` if :meth:`advance` accepts it, else None."""
        corrected = self.engine.correct(point.z, point.tangent, h, chord=point.matrix, chord_steps=chord_steps)
        try:                                               # a trial may land on a branch point: no tangent
            candidate = None if corrected is None else self._point(*corrected, point.tangent)
        except AnalysisError:
            return None
        if candidate is None:
            return None
        moved = self.engine.distance(candidate.z, point.z + h * point.tangent)
        turn = np.arccos(np.clip(candidate.tangent @ (self.problem.weights * point.tangent), -1.0, 1.0))
        change = abs(abs(candidate.multipliers[0]) - abs(point.multipliers[0]))
        crosses = candidate.orientation != point.orientation and h > BRANCH_STEP
        accepted = moved <= MAX_CORRECTION * h and turn <= MAX_ANGLE and change <= MAX_MODULUS_CHANGE
        return candidate if accepted and not crosses else None

    def follow(self, first: BranchPoint, end: float, stop=None):
        """Points from ``first`` (included) until λ passes ``end`` or ``stop(previous, point)`` is true; the
        last point yielded is the first beyond. While the margin 1 − max|μ| falls, a step is at most a quarter
        of the arclength that the last step's slope needs to close it (not below :data:`APPROACH_STEP`): a dip of
        the margin — where the branch may bend as sharply as the margin is small — is sampled, never stepped
        across, and a step never outruns the bend onto a neighbouring branch."""
        point, h, direction = first, self.max_step, np.sign(first.tangent[-1]) or 1.0
        yield point
        while True:
            nxt, taken = self.advance(point, h)
            yield nxt
            if (nxt.value - end) * direction > 0 or (stop is not None and stop(point, nxt)):
                return
            h = min(1.5 * taken, self.max_step)
            falling = (point.margin - nxt.margin) / taken
            if falling > 0 and nxt.margin > 0:
                h = min(h, max(0.25 * nxt.margin / falling, APPROACH_STEP))
            point = nxt

    # --- location -------------------------------------------------------------------------------------------

    def root(self, before: BranchPoint, after: BranchPoint, test, tangent: bool = False) -> BranchPoint:
        """The point between two consecutive points where ``test(BranchPoint)`` changes sign (Brent on the step's
        arclength, :func:`.bifurcations.root_on_step`); ``tangent``: the test reads the points' tangents."""
        span = float((after.z - before.z) @ (self.problem.weights * before.tangent))
        previous = before.tangent if tangent else None

        def value(z, jacobians):
            return test(self._point(z, jacobians, previous))

        z, jacobians = root_on_step(self._located(before), value, before.z, before.tangent, span, ROOT_RESOLUTION)
        return self._point(z, jacobians, previous)

    def _located(self, point: BranchPoint):
        """A corrector from ``point`` for the locations: chord iterations on its matrix (the point's own
        linearisation is then computed once, by :meth:`_point`), Newton proper where they do not converge."""
        def correct(z0, t0, s):
            return (self.engine.correct(z0, t0, s, chord=point.matrix, chord_steps=self.problem.iterations)
                    or self.engine.correct(z0, t0, s))

        return correct

    def minimum(self, left: BranchPoint, middle: BranchPoint, right: BranchPoint, quantity) -> BranchPoint:
        """The point between ``left`` and ``right`` (the steps on either side of ``middle``) where
        ``quantity(BranchPoint)`` is least: bounded Brent minimisation on the arclength of each step, each
        evaluation a point corrected on the step's hyperplane. Where a step's hyperplanes miss the branch (a bend
        sharper than the step), the two steps are first followed again in steps of a quarter of the shorter."""
        for _ in range(REFINEMENTS):
            try:
                return min((self._step_minimum(start, end, quantity) for start, end in ((left, middle),
                                                                                         (middle, right))),
                           key=quantity)
            except AnalysisError:
                left, middle, right = self._resampled(left, middle, right, quantity)
        raise AnalysisError(f"the minimum near λ = {middle.value:.9g} cannot be located: the branch bends too "
                            f"sharply")

    def _resampled(self, left, middle, right, quantity):
        """The least of the points met following from ``left`` to ``right`` in shorter steps, with its neighbours."""
        weights = self.problem.weights
        h = min((middle.z - left.z) @ (weights * left.tangent), (right.z - middle.z) @ (weights * middle.tangent)) / 4
        points = [left]
        while (points[-1].z - right.z) @ (weights * right.tangent) < 0:
            points.append(self.advance(points[-1], h)[0])
        i = min(range(1, len(points) - 1), key=lambda k: quantity(points[k]))
        return points[i - 1], points[i], points[i + 1]

    def _step_minimum(self, start: BranchPoint, end: BranchPoint, quantity) -> BranchPoint:
        span = float((end.z - start.z) @ (self.problem.weights * start.tangent))
        correct, cache = self._located(start), {0.0: start, span: end}

        def value(s):
            if s not in cache:
                corrected = correct(start.z, start.tangent, s)
                if corrected is None:
                    raise AnalysisError("the branch could not be corrected inside a bracketing step")
                cache[s] = self._point(*corrected)
            return quantity(cache[s])

        best = minimize_scalar(value, bounds=(0.0, span), method="bounded", options={"xatol": 1e-10 * span})
        value(best.x)
        return min(cache.values(), key=quantity)


__all__ = ["BranchPoint", "FixedPointBranch", "FixedPointProblem", "REAL_TOLERANCE", "leading_multipliers"]
