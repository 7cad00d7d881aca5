"""The minimal critical shock (docs/basins.md §8) on maps whose answer is known in closed form."""
import numba
import numpy as np
import pytest

import meanfield as mf
from meanfield.census.basins import KnownAttractors
from meanfield.census.shock import ShockSearch, minimal_critical_shock
from meanfield.errors import ConfigError

A = 1.5
#: The two fixed points are the only attractors (the tails, 8 steps, hold no longer cycle).
UP_TO_1 = mf.census.Tolerances(max_period=1)


@numba.njit(cache=True)
def cubic_x(x, p, out):
    """x' = a·x − x³ (fixed points ±√(a−1) stable for 1 < a < 2), y' = y/2 (a contracting direction)."""
    out[0] = p[0] * x[0] - x[0] ** 3
    out[1] = 0.5 * x[1]


@numba.njit(cache=True)
def cubic_x_jacobian(x, p, out):
    out[0, 0] = p[0] - 3.0 * x[0] ** 2
    out[0, 1] = 0.0
    out[1, 0] = 0.0
    out[1, 1] = 0.5


def _fixed_points():
    star = np.sqrt(A - 1.0)
    points = [np.array([[star, 0.0]]), np.array([[-star, 0.0]])]
    quantiles = np.array([np.repeat(p, 64, axis=0) for p in points])
    return KnownAttractors(period=np.array([1, 1]), scale=np.array([star, star]), quantiles=quantiles,
                           points=points)


def test_the_nearest_boundary_of_the_cubic_maps_fixed_point():
    # from x* = +sqrt(a-1) the boundary x = 0 is sqrt(a-1) = 0.707 away, but x > sqrt(a) maps to x' < 0 (and then
    # to -x*, for sqrt(a) < x < sqrt(a+1)): the nearest other basin starts at sqrt(a) - sqrt(a-1) = 0.5176 (max norm;
    # y does not matter, so a direction with u_x = +1 reaches it at exactly that radius)
    system = mf.Map(cubic_x, cubic_x_jacobian, np.array([0.7, 0.0]), {"a": A})
    known = _fixed_points()
    shock = minimal_critical_shock(system, known, 0, known.points[0][0], 400, 392,
                                   search=ShockSearch(tol=1e-4, directions=32, tolerances=UP_TO_1))
    expected = np.sqrt(A) - np.sqrt(A - 1.0)
    # the bisection's bracket is 1e-4 of the radius wide and its upper end is reported
    assert expected <= shock.radius <= expected + 1e-4
    assert shock.destination == 1 and shock.delta[0] == pytest.approx(shock.radius)
    # the rays that can only cross x = 0 (u_x = -1) leave at sqrt(a-1)
    assert np.min(shock.radii[np.isfinite(shock.radii)]) == shock.radius
    assert np.any(np.abs(shock.radii - np.sqrt(A - 1.0)) < 1e-4)


def test_nothing_leaves_within_a_small_radius():
    system = mf.Map(cubic_x, cubic_x_jacobian, np.array([0.7, 0.0]), {"a": A})
    known = _fixed_points()
    shock = minimal_critical_shock(system, known, 0, known.points[0][0], 400, 392,
                                   search=ShockSearch(radius=0.4, tolerances=UP_TO_1))
    assert shock.radius == np.inf and shock.destination == -1 and np.all(np.isinf(shock.radii))


@pytest.mark.parametrize("key, value", [("radius", 0.0), ("tol", 2.0), ("directions", 0), ("k", 5)])
def test_bad_options_are_refused(key, value):
    system = mf.Map(cubic_x, cubic_x_jacobian, np.array([0.7, 0.0]), {"a": A})
    known = _fixed_points()
    options = {"k": 0, "state": known.points[0][0], "steps": 400, "transient": 392}
    if key == "k":
        options["k"] = value
    with pytest.raises(ConfigError, match=key):        # a search checks its fields when it is made
        search = ShockSearch(**({} if key == "k" else {key: value}), tolerances=UP_TO_1)
        minimal_critical_shock(system, known, search=search, **options)
