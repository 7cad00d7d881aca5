"""Two-parameter bifurcation curves of maps against closed forms (meanfield/analysis/curves.py).

Every expected value is derived in closed form in the comments, never from the code's own output. The
tolerance 1e-9 is the issue's: every curve point solves the multiple-shooting equations to 1e-12·max(1, |x|)
and the determinant test function to 1e-12·Π(1 + |μ|), with O(1) derivatives of the closed-form curves there,
so each point lies within ~1e-11 of the exact curve; codim-2 points are located by Brent to 1e-12 in arclength.
"""

from dataclasses import replace

import numba as nb
import numpy as np
import pytest

from meanfield.analysis import locate_bifurcations
from meanfield.analysis.bifurcations import Bifurcation
from meanfield.analysis.curves import continue_curve
from meanfield.errors import AnalysisError
from tests.analysis.textbook import henon_jacobian, henon_step

TOL = 1e-9
B = 0.3


def start_on_henon(x0, period, interval):
    found = locate_bifurcations(henon_step, henon_jacobian, np.array(x0, dtype=float), period, 0, interval,
                                params=np.array([interval[0], B]))
    assert len(found) == 1
    return found[0]


def henon_fixed_point(a, b=B):
    # x = 1 − a x² + b x  ⇒  a x² + (1 − b) x − 1 = 0, the root continuous through a = 0
    return (-(1 - b) + np.sqrt((1 - b) ** 2 + 4 * a)) / (2 * a)


def test_henon_flip_curve_is_three_quarters_one_minus_b_squared():
    # fixed point's Jacobian [[−2ax, 1], [b, 0]]: trace −2ax, det −b; μ = −1 ⇔ 1 + tr + det = 0 ⇔ 2ax = 1 − b,
    # with a x² + (1 − b) x = 1: x = 2/(3(1 − b)), a = 3(1 − b)²/4. The other multiplier is det/(−1) = b, never
    # +1 on b ∈ [−0.9, 0.9]: no fold–flip
    x = henon_fixed_point(0.2)
    start = start_on_henon([x, B * x], 1, (0.2, 0.5))
    curve = continue_curve(henon_step, henon_jacobian, start, (0, 1), (-0.9, 0.9), params=[0.2, B])
    a, b = curve.values.T
    assert np.abs(a - 3 * (1 - b) ** 2 / 4).max() <= TOL
    assert b.min() == -0.9 and b.max() == 0.9 and np.all(np.diff(b) > 0)
    assert np.abs(curve.multipliers.real.min(axis=1) + 1).max() <= 1e-8  # the −1 multiplier itself
    assert curve.special == []


def test_henon_fold_curve_is_minus_a_quarter_one_minus_b_squared():
    # fold: μ = +1 ⇔ 1 − tr + det = 0 ⇔ 1 + 2ax − b = 0, i.e. the double root of a x² + (1 − b) x − 1:
    # discriminant (1 − b)² + 4a = 0, a = −(1 − b)²/4. The other multiplier is −b, never −1 here
    x = henon_fixed_point(-0.05)
    start = start_on_henon([x, B * x], 1, (-0.05, -0.2))
    assert start.kind == "fold"
    curve = continue_curve(henon_step, henon_jacobian, start, (0, 1), (-0.9, 0.9), params=[-0.05, B])
    a, b = curve.values.T
    assert np.abs(a + (1 - b) ** 2 / 4).max() <= TOL
    assert b.min() == -0.9 and b.max() == 0.9
    assert curve.special == []


def test_henon_two_cycle_flip_curve():
    # 2-cycle x1 ↔ x2 of x_{n+1} = 1 − a x_n² + b x_{n−1}: (1 − b) x2 = 1 − a x1², (1 − b) x1 = 1 − a x2², so
    # s = x1 + x2 = (1 − b)/a and q = x1 x2 = (1 − b)²/a² − 1/a. Monodromy J(x2) J(x1) has det b² and trace
    # 4a²q + 2b = 4(1 − b)² − 4a + 2b; μ = −1 ⇔ 1 + tr + det = 0 ⇔ a = (1 − b)² + (1 + b)²/4
    # (b = 0: a = 5/4, the quadratic map's 2-cycle flip). The other multiplier is −b², never +1: no fold–flip
    a0 = 0.8
    s, q = (1 - B) / a0, (1 - B) ** 2 / a0 ** 2 - 1 / a0
    x1, x2 = (s + np.sqrt(s * s - 4 * q)) / 2, (s - np.sqrt(s * s - 4 * q)) / 2
    start = start_on_henon([x1, B * x2], 2, (a0, 1.0))
    assert start.kind == "period_doubling" and start.period == 2
    curve = continue_curve(henon_step, henon_jacobian, start, (0, 1), (-0.5, 0.5), params=[a0, B])
    a, b = curve.values.T
    assert np.abs(a - ((1 - b) ** 2 + (1 + b) ** 2 / 4)).max() <= TOL
    assert b.min() == -0.5 and b.max() == 0.5 and curve.points.shape[1:] == (2, 2)
    assert curve.special == []


@nb.njit(cache=True)
def skewed_delayed_logistic_step(x, p, out):
    """x' = a x (1 − y) + c (x − y), y' = x: the delayed logistic map plus a term vanishing on the diagonal."""
    out[0] = p[0] * x[0] * (1.0 - x[1]) + p[1] * (x[0] - x[1])
    out[1] = x[0]


@nb.njit(cache=True)
def skewed_delayed_logistic_jacobian(x, p, out):
    out[0, 0] = p[0] * (1.0 - x[1]) + p[1]
    out[0, 1] = -p[0] * x[0] - p[1]
    out[1, 0] = 1.0
    out[1, 1] = 0.0


def test_neimark_sacker_curve_and_strong_resonances():
    # the fixed point stays x* = y* = 1 − 1/a (c multiplies x − y = 0 there); its Jacobian is
    # [[1 + c, 1 − a − c], [1, 0]]: det a − 1 + c, trace 1 + c. Neimark–Sacker: det = 1 ⇔ a = 2 − c, with the
    # pair e^{±iθ}, cos θ = (1 + c)/2: 1:4 (θ = π/2) at c = −1, a = 3; 1:3 (θ = 2π/3) at c = −2, a = 4;
    # 1:2 (θ = π) at c = −3, a = 5; below c = −3 the pair is real with product 1 (a neutral saddle)
    step, jac = skewed_delayed_logistic_step, skewed_delayed_logistic_jacobian
    found = locate_bifurcations(step, jac, np.array([0.45, 0.45]), 1, 0, (1.8, 2.2), params=np.array([1.8, 0.0]))
    assert [b.kind for b in found] == ["neimark_sacker"]
    curve = continue_curve(step, jac, found[0], (0, 1), (-3.5, 0.5), params=[1.8, 0.0])
    a, c = curve.values.T
    assert np.abs(a - (2 - c)).max() <= TOL
    assert c.min() == -3.5 and c.max() == 0.5
    assert np.array_equal(curve.neutral_saddle, c < -3)
    expected = {"resonance_1:2": (5.0, -3.0), "resonance_1:3": (4.0, -2.0), "resonance_1:4": (3.0, -1.0)}
    assert sorted(p.kind for p in curve.special) == sorted(expected)
    for point in curve.special:
        assert np.abs(point.values - expected[point.kind]).max() <= TOL, point
        assert point.test.startswith("Re(μ_a + μ_b)/2")


def test_bad_input_is_refused_in_one_line():
    x = henon_fixed_point(0.2)
    flip = Bifurcation("period_doubling", 3 * (1 - B) ** 2 / 4, np.array([-1.0, B]), 1, None,
                       np.array([[2 / (3 * (1 - B)), B * 2 / (3 * (1 - B))]]))
    with pytest.raises(AnalysisError, match="kind"):
        continue_curve(henon_step, henon_jacobian, replace(flip, kind="cusp"), (0, 1), (-0.9, 0.9),
                       params=[0.2, B])
    with pytest.raises(AnalysisError, match="interval"):
        continue_curve(henon_step, henon_jacobian, flip, (0, 1), (np.nan, 0.9), params=[0.2, B])
    with pytest.raises(AnalysisError, match="interval"):
        continue_curve(henon_step, henon_jacobian, flip, (0, 1), (0.5, 0.9), params=[0.2, B])
    with pytest.raises(AnalysisError, match="parameters"):
        continue_curve(henon_step, henon_jacobian, flip, (1, 1), (-0.9, 0.9), params=[0.2, B])
    # the flip point asked for as a fold: det(M − I) = 2(1 − b) ≠ 0 there
    with pytest.raises(AnalysisError, match="not a fold point"):
        continue_curve(henon_step, henon_jacobian, replace(flip, kind="fold"), (0, 1), (-0.9, 0.9),
                       params=[0.2, B])
    # a point of the fixed-point branch at a = 0.2, no bifurcation
    ordinary = Bifurcation("period_doubling", 0.2, np.array([0.0, 0.0]), 1, None, np.array([[x, B * x]]))
    with pytest.raises(AnalysisError, match="not a period_doubling point"):
        continue_curve(henon_step, henon_jacobian, ordinary, (0, 1), (-0.9, 0.9), params=[0.2, B])


@pytest.mark.parametrize("kind", ["fold", "period_doubling", "neimark_sacker"])
def test_the_defining_gradient_equals_central_differences_of_g(kind):
    """∂g/∂M in closed form (adjugate, eigenvectors) against central differences of g itself (h = 1e-6: error
    ~h² g‴ + ε g/h ≈ 1e-9 for entries of order one) on a random 7 × 7 monodromy, and where g = 0 (a fold at
    μ = 1 exactly: the adjugate stays finite, a difference of g across the zero still defines it)."""
    from meanfield.analysis.defining import defining, defining_gradient
    rng = np.random.default_rng(3)
    matrices = [rng.normal(size=(7, 7)) / 3]
    if kind == "fold":
        q = np.linalg.qr(rng.normal(size=(7, 7)))[0]
        matrices.append(q @ np.diag([1.0, 0.5, -0.3, 0.2, 0.1, -0.6, 0.4]) @ q.T)
    for m in matrices:
        numeric = np.empty_like(m)
        for a in range(7):
            for b in range(7):
                step = np.zeros_like(m)
                step[a, b] = 1e-6
                numeric[a, b] = (defining(kind, m + step) - defining(kind, m - step)) / 2e-6
        np.testing.assert_allclose(defining_gradient(kind, m), numeric, rtol=0, atol=1e-8)
