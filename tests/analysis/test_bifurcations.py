"""Periodic orbits and located bifurcations on maps whose bifurcation points are known exactly.

Every expected value below is derived in closed form (comments), never from the code under test. The
tolerance 1e-9 is the one the documentation promises for ``resolution = 1e-10``: Brent's bracket is 2.5e-11
in arclength and the branch is corrected to ~1e-12, so the located parameter is good to ~1e-11.
"""

import numba as nb
import numpy as np
import pytest

from meanfield.analysis import locate_bifurcations
from meanfield.analysis.orbits import periodic_orbit
from meanfield.errors import AnalysisError
from tests.analysis.textbook import (
    delayed_logistic_jacobian,
    delayed_logistic_step,
    henon_jacobian,
    henon_step,
    logistic_jacobian,
    logistic_step,
)

TOL = 1e-9


def located(step, jacobian, x0, period, interval, params, index=0):
    found = locate_bifurcations(step, jacobian, np.array(x0, dtype=float), period, index, interval,
                                params=np.array(params, dtype=float))
    return [(b.kind, b.value) for b in found], found


def test_logistic_fixed_point_flips_at_three():
    # x* = 1 − 1/r has multiplier r(1 − 2x*) = 2 − r: −1 at r = 3
    kinds, _ = located(logistic_step, logistic_jacobian, [0.6], 1, (2.5, 3.2), [2.5])
    assert [k for k, _ in kinds] == ["period_doubling"]
    assert abs(kinds[0][1] - 3.0) <= TOL


def test_logistic_period_two_flips_at_one_plus_sqrt6():
    # the 2-cycle's multiplier is −r² + 2r + 4 (Strogatz, Nonlinear Dynamics and Chaos, §10.3): −1 at r = 1 + √6
    kinds, found = located(logistic_step, logistic_jacobian, [0.5], 2, (3.2, 3.5), [3.2])
    assert [k for k, _ in kinds] == ["period_doubling"]
    assert abs(kinds[0][1] - (1 + np.sqrt(6))) <= TOL
    assert found[0].period == 2 and abs(found[0].multipliers[0] + 1) < 1e-8


def test_period_three_window_opens_by_a_fold_at_one_plus_sqrt8():
    # the period-3 orbits are born in a saddle-node at r = 1 + √8 (Saha & Strogatz 1995); continued
    # downwards from the stable 3-cycle at r = 3.84, the branch turns back at the fold
    kinds, found = located(logistic_step, logistic_jacobian, [0.15], 3, (3.84, 3.80), [3.84])
    assert [k for k, _ in kinds] == ["fold"]
    assert abs(kinds[0][1] - (1 + np.sqrt(8))) <= TOL
    assert abs(found[0].multipliers[0] - 1) < 1e-6


def test_henon_fixed_point_flips_at_three_quarters_one_minus_b_squared():
    # Hénon x' = 1 − a x² + y, y' = b x: the fixed point's eigenvalue −1 at a = 3(1 − b)²/4
    b, a0 = 0.3, 0.2
    x = (-(1 - b) + np.sqrt((1 - b) ** 2 + 4 * a0)) / (2 * a0)
    kinds, _ = located(henon_step, henon_jacobian, [x, b * x], 1, (a0, 0.5), [a0, b])
    assert [k for k, _ in kinds] == ["period_doubling"]
    assert abs(kinds[0][1] - 3 * (1 - b) ** 2 / 4) <= TOL


def test_delayed_logistic_neimark_sacker_at_two_with_rotation_one_sixth():
    # x' = a x (1 − y), y' = x: at x* = y* = 1 − 1/a the Jacobian [[1, 1 − a], [1, 0]] has characteristic
    # polynomial λ² − λ + (a − 1): |λ|² = a − 1 = 1 at a = 2, where λ = (1 ± i√3)/2 = e^{±iπ/3}: rotation 1/6
    kinds, found = located(delayed_logistic_step, delayed_logistic_jacobian, [0.45, 0.45], 1, (1.8, 2.2), [1.8])
    assert [k for k, _ in kinds] == ["neimark_sacker"]
    assert abs(kinds[0][1] - 2.0) <= TOL
    assert abs(found[0].rotation_number - 1 / 6) <= TOL


def test_periodic_orbit_of_the_logistic_two_cycle():
    # the 2-cycle of r = 3.2: x± = (r + 1 ± √((r − 3)(r + 1))) / (2r), multiplier −r² + 2r + 4 = 0.16
    r = 3.2
    orbit = periodic_orbit(logistic_step, logistic_jacobian, np.array([0.3]), 2, params=np.array([r]))
    exact = sorted((r + 1 + s * np.sqrt((r - 3) * (r + 1))) / (2 * r) for s in (-1, 1))
    assert np.allclose(sorted(orbit.points[:, 0]), exact, rtol=0, atol=1e-13)
    assert abs(orbit.multipliers[0] - (-r * r + 2 * r + 4)) < 1e-12
    assert orbit.stable and orbit.period == 2 and orbit.residual < 1e-13


def test_long_period_multipliers_are_the_power_of_the_short_ones():
    # the 2-cycle of r = 3.2 traversed 150 times is a 300-point orbit with multiplier 0.16^150 ≈ 3e-120:
    # the rescaled product must return it to rounding: the points are Newton-accurate to ~1e-13, so each
    # traversal's multiplier is good to ~1e-14 relative and 150 traversals to ~1e-12; 1e-10 leaves margin
    orbit = periodic_orbit(logistic_step, logistic_jacobian, np.array([0.513]), 300, params=np.array([3.2]))
    assert abs(orbit.multipliers[0] / 0.16 ** 150 - 1) < 1e-10


def test_bad_arguments_name_the_argument():
    with pytest.raises(AnalysisError, match="period"):
        periodic_orbit(logistic_step, logistic_jacobian, np.array([0.3]), 0, params=np.array([3.2]))
    with pytest.raises(AnalysisError, match="parameter_index"):
        locate_bifurcations(logistic_step, logistic_jacobian, np.array([0.6]), 1, 3, (2.5, 3.2),
                            params=np.array([2.5]))
    with pytest.raises(AnalysisError, match="interval"):
        locate_bifurcations(logistic_step, logistic_jacobian, np.array([0.6]), 1, 0, (2.5, 2.5),
                            params=np.array([2.5]))
    with pytest.raises(AnalysisError, match="x0"):
        periodic_orbit(logistic_step, logistic_jacobian, np.array([np.inf]), 1, params=np.array([4.0]))
    with pytest.raises(AnalysisError, match="singular"):
        # the translation x' = x + 1 has no fixed point: Newton's matrix F' − 1 is exactly zero
        periodic_orbit(translation_step, translation_jacobian, np.array([0.3]), 1)


@nb.njit(cache=True)
def translation_step(x, p, out):
    out[0] = x[0] + 1.0


@nb.njit(cache=True)
def translation_jacobian(x, p, out):
    out[0, 0] = 1.0
