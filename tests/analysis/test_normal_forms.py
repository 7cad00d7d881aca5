"""Normal-form coefficients of period doubling and Neimark–Sacker (meanfield/analysis/normal_forms.py) against
closed forms, and the codim-2 points where they vanish on curves (meanfield/analysis/curves.py).

Conventions (docs/bifurcations.md §9): ⟨q, q⟩ = 1, ⟨p, q⟩ = 1; period doubling c = (1/6)⟨p, C(q,q,q) +
3B(q, (I − M)⁻¹B(q,q))⟩, supercritical when c > 0; Neimark–Sacker l₁ = Re(e^{−iθ}c₁), supercritical when l₁ < 0.
For a 1-D map x ↦ −x + f₂x²/2 + f₃x³/6 this is c = f₂²/4 + f₃/6 (q = p = 1, (I − M)⁻¹ = 1/2).

Tolerances: the coefficients use central differences of the analytic Jacobian with step 1e−4 (module
docstring); every map here is a polynomial of degree ≤ 3 (degree 4 for the twice-iterated logistic map, but
the differences are taken of the one-step map, degree 2), so the truncation error vanishes and the rounding
error ≈ 4ε|J|/h² ≈ 1e−8 relative remains: values are compared to 1e−7 relative (measured ≤ 2e−8). Codim-2
points are roots of a coefficient with slope O(1) along the curve, so they inherit its absolute error: 1e−6.
"""

import numba as nb
import numpy as np
import pytest
from numpy.polynomial import Polynomial

from meanfield.analysis import locate_bifurcations
from meanfield.analysis.curves import continue_curve
from meanfield.analysis.normal_forms import criticality
from tests.analysis.textbook import henon_jacobian, henon_step, logistic_jacobian, logistic_step

REL = 1e-7
ROOT = 1e-6


def test_logistic_map_flip_at_r_3_is_supercritical_with_c_9():
    # f(x) = r x (1 − x), r = 3: x* = 2/3, f' = r(1 − 2x*) = −1, f'' = −2r = −6, f''' = 0, so
    # c = f''²/4 + f'''/6 = 36/4 = 9 > 0: supercritical (the stable 2-cycle is born for r > 3)
    flip, = locate_bifurcations(logistic_step, logistic_jacobian, np.array([0.6]), 1, 0, (2.9, 3.1),
                                params=np.array([2.9]))
    assert flip.kind == "period_doubling" and flip.parameter == 0
    assert abs(flip.coefficient - 9.0) <= REL * 9.0
    assert flip.criticality == "supercritical"


def test_logistic_two_cycle_flip_matches_the_composed_polynomial():
    # the 2-cycle flips at r = 1 + √6. F = f∘f is the quartic composed exactly by numpy's polynomial algebra
    # (an independent route to the chain rule), and F'(x₀) = −1 there; c = F''(x₀)²/4 + F'''(x₀)/6
    r = 1 + np.sqrt(6.0)
    x0 = (r + 1 + np.sqrt((r + 1) * (r - 3))) / (2 * r)
    f = Polynomial([0.0, r, -r])
    composed = f(f)
    assert abs(composed.deriv(1)(x0) + 1) <= 1e-12
    expected = composed.deriv(2)(x0) ** 2 / 4 + composed.deriv(3)(x0) / 6
    flip, = locate_bifurcations(logistic_step, logistic_jacobian, np.array([x0]), 2, 0, (r - 0.01, r + 0.01),
                                params=np.array([r - 0.01]))
    assert flip.period == 2 and abs(flip.value - r) <= 1e-9
    point = flip.points[0, 0]  # the cycle's point where the coefficient is taken: the larger or the smaller
    f_point = composed.deriv(2)(point) ** 2 / 4 + composed.deriv(3)(point) / 6
    assert abs(flip.coefficient - f_point) <= REL * abs(f_point)
    assert f_point > 0 and expected > 0 and flip.criticality == "supercritical"


def test_henon_flip_curve_coefficient_in_closed_form():
    # (x, y) ↦ (1 − a x² + y, b x) at its flip (2ax = 1 − b): A = [[−(1 − b), 1], [b, 0]], q ∝ (1, −b)
    # ((A + I)q = 0), p ∝ (1, −1) (Aᵀp = −p); B(u, v) = (−2a u₁v₁, 0), C = 0. (I − A)⁻¹ = [[1, 1], [b, 2 − b]]/(2 − 2b)
    # gives h = (I − A)⁻¹B(q,q) = −a(1, b)/(1 − b) for q = (1, −b), B(q, h) = (2a²/(1 − b), 0), and with
    # ⟨p, q⟩ = 1 (p = (1, −1)/(1 + b)): c = ½·2a²/((1 − b)(1 + b)). Rescaling q to unit length (÷√(1 + b²))
    # multiplies c by 1/(1 + b²): c = a²/((1 − b²)(1 + b²)), a = 3(1 − b)²/4 on the curve; > 0: supercritical
    x = (-(1 - 0.3) + np.sqrt((1 - 0.3) ** 2 + 0.8)) / 0.4
    start, = locate_bifurcations(henon_step, henon_jacobian, np.array([x, 0.3 * x]), 1, 0, (0.2, 0.5),
                                 params=np.array([0.2, 0.3]))
    curve = continue_curve(henon_step, henon_jacobian, start, (0, 1), (-0.8, 0.8), params=[0.2, 0.3])
    a, b = curve.values.T
    expected = a ** 2 / ((1 - b * b) * (1 + b * b))
    assert np.abs(curve.coefficients / expected - 1).max() <= REL
    assert set(curve.criticality) == {"supercritical"}
    assert not any(p.kind == "generalised_period_doubling" for p in curve.special)


@nb.njit(cache=True)
def cubic_flip_step(x, p, out):
    """x ↦ −(1 + α)x + x² + b x³, p = (α, b)."""
    out[0] = -(1.0 + p[0]) * x[0] + x[0] * x[0] + p[1] * x[0] ** 3


@nb.njit(cache=True)
def cubic_flip_jacobian(x, p, out):
    out[0, 0] = -(1.0 + p[0]) + 2.0 * x[0] + 3.0 * p[1] * x[0] * x[0]


def test_generalised_period_doubling_where_c_changes_sign():
    # x = 0 flips at α = 0 for every b; f'' = 2, f''' = 6b, so c = 4/4 + 6b/6 = 1 + b: supercritical for
    # b > −1, subcritical below, generalised period doubling at (α, b) = (0, −1)
    flip, = locate_bifurcations(cubic_flip_step, cubic_flip_jacobian, np.array([0.0]), 1, 0, (-0.1, 0.1),
                                params=np.array([-0.1, 0.5]))
    curve = continue_curve(cubic_flip_step, cubic_flip_jacobian, flip, (0, 1), (-2.0, 0.5), params=[-0.1, 0.5])
    alpha, b = curve.values.T
    assert np.abs(alpha).max() <= 1e-12
    assert np.abs(curve.coefficients - (1 + b)).max() <= REL * 2
    away = np.abs(b + 1) > 1e-6
    assert list(np.array(curve.criticality)[away]) == ["supercritical" if v > -1 else "subcritical" for v in b[away]]
    gpd = [p for p in curve.special if p.kind == "generalised_period_doubling"]
    assert len(gpd) == 1 and gpd[0].test == "c"
    assert np.abs(gpd[0].values - [0.0, -1.0]).max() <= ROOT


@nb.njit(cache=True)
def rotation_step(x, p, out):
    """z ↦ e^{iθ}(1 + α)z + d z|z|² in x = (Re z, Im z), p = (α, θ, Re d, Im d)."""
    r2 = x[0] * x[0] + x[1] * x[1]
    c, s = np.cos(p[1]) * (1.0 + p[0]), np.sin(p[1]) * (1.0 + p[0])
    out[0] = c * x[0] - s * x[1] + (p[2] * x[0] - p[3] * x[1]) * r2
    out[1] = s * x[0] + c * x[1] + (p[2] * x[1] + p[3] * x[0]) * r2


@nb.njit(cache=True)
def rotation_jacobian(x, p, out):
    r2 = x[0] * x[0] + x[1] * x[1]
    c, s = np.cos(p[1]) * (1.0 + p[0]), np.sin(p[1]) * (1.0 + p[0])
    real, imag = p[2] * x[0] - p[3] * x[1], p[2] * x[1] + p[3] * x[0]
    out[0, 0] = c + p[2] * r2 + 2.0 * real * x[0]
    out[0, 1] = -s - p[3] * r2 + 2.0 * real * x[1]
    out[1, 0] = s + p[3] * r2 + 2.0 * imag * x[0]
    out[1, 1] = c + p[2] * r2 + 2.0 * imag * x[1]


def expected_l1(theta, d):
    # q = (1, −i)/√2 (unit, eigenvector of e^{iθ}) and x = ξq + ξ̄q̄ give z = √2 ξ, so the map reads
    # ξ ↦ e^{iθ}ξ + 2d ξ²ξ̄: c₁ = 2d and l₁ = Re(e^{−iθ}c₁) = 2 Re(e^{−iθ} d). The invariant circle of
    # |z|² = −α/Re(e^{−iθ}d) exists for α > 0 iff l₁ < 0 (supercritical)
    return 2 * (np.exp(-1j * theta) * d).real


@pytest.mark.parametrize("theta, d", [(1.0, 0.3 - 0.7j), (2.2, -0.4 + 0.5j), (0.4, 0.2 + 0.1j)])
def test_neimark_sacker_first_lyapunov_coefficient_of_the_normal_form(theta, d):
    found, = locate_bifurcations(rotation_step, rotation_jacobian, np.zeros(2), 1, 0, (-0.1, 0.1),
                                 params=np.array([-0.1, theta, d.real, d.imag]))
    assert found.kind == "neimark_sacker" and abs(found.value) <= 1e-10
    l1 = expected_l1(theta, d)
    assert abs(found.coefficient - l1) <= REL * abs(l1)
    assert found.criticality == ("supercritical" if l1 < 0 else "subcritical")


def test_chenciner_point_where_l1_changes_sign():
    # with θ = 1, Im d = 0.5 fixed: l₁ = 2(Re d cos 1 + 0.5 sin 1) vanishes at Re d = −0.5 tan 1 (Chenciner)
    theta, imag = 1.0, 0.5
    params = np.array([-0.1, theta, 0.0, imag])
    found, = locate_bifurcations(rotation_step, rotation_jacobian, np.zeros(2), 1, 0, (-0.1, 0.1), params=params)
    curve = continue_curve(rotation_step, rotation_jacobian, found, (0, 2), (-1.5, 1.0), params=params)
    real = curve.values[:, 1]
    assert np.abs(curve.coefficients - expected_l1(theta, real + 1j * imag)).max() <= REL * 2
    chenciner = [p for p in curve.special if p.kind == "chenciner"]
    assert len(chenciner) == 1 and chenciner[0].test == "l₁"
    assert np.abs(chenciner[0].values - [0.0, -imag * np.tan(theta)]).max() <= ROOT


def test_criticality_words():
    assert criticality("period_doubling", 2.0) == "supercritical"
    assert criticality("period_doubling", -2.0) == "subcritical"
    assert criticality("neimark_sacker", -2.0) == "supercritical"
    assert criticality("neimark_sacker", 0.0) == "degenerate"
    assert criticality("fold", 1.0) is None and criticality("neimark_sacker", np.nan) is None


def test_strong_resonances_and_chenciner_where_the_angle_is_the_parameter():
    # the rotation map's Neimark–Sacker curve in (α, θ) is α = 0 with the pair e^{±iθ}: 1:4 at θ = π/2 and 1:3 at
    # θ = 2π/3 (where e^{2iθ}I − M is singular: c₁ undefined, B = 0 here so no pole), and with d = 0.3 − 0.7i
    # l₁ = 2(0.3 cos θ − 0.7 sin θ) vanishes at θ = atan(3/7) (Chenciner). 1e-9: the resonances are roots of
    # smooth functions of the multipliers, located to 1e-12 in arclength (tests/analysis/test_curves.py)
    params = np.array([-0.1, 1.0, 0.3, -0.7])
    found, = locate_bifurcations(rotation_step, rotation_jacobian, np.zeros(2), 1, 0, (-0.1, 0.1), params=params)
    curve = continue_curve(rotation_step, rotation_jacobian, found, (0, 1), (0.3, 3.0), params=params)
    theta = curve.values[:, 1]
    finite = np.isfinite(curve.coefficients)
    assert np.abs(curve.coefficients[finite] - expected_l1(theta[finite], 0.3 - 0.7j)).max() <= REL * 2
    expected = {"resonance_1:4": np.pi / 2, "resonance_1:3": 2 * np.pi / 3, "chenciner": np.arctan(3 / 7)}
    assert sorted(p.kind for p in curve.special) == sorted(expected)
    for point in curve.special:
        assert abs(point.values[0]) <= 1e-9
        assert abs(point.values[1] - expected[point.kind]) <= (ROOT if point.kind == "chenciner" else 1e-9), point
