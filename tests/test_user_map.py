"""A user's own map through every generic tool (docs/architecture.md): ``mf.Map`` in simulate, classify,
find_attractors, continue_attractors, periodic_orbit and bifurcations, against values from the literature.

* Hénon map x' = 1 − a x² + y, y' = b x (Hénon 1976): at (1.4, 0.3) one chaotic attractor with
  λ1 = 0.41922 (Sprott, *Chaos and Time-Series Analysis*, 2003, table A.1); its fixed point
  x* = (−(1 − b) + √((1 − b)² + 4a)) / (2a) is born in a fold at a = −(1 − b)²/4 and flips at
  a = 3(1 − b)²/4 (for b = 0.3: −0.1225 and 0.3675).
* The odd cubic map x' = a x − x³ is symmetric under x → −x: its attractors come in mirror pairs with mirror
  basins, so starts uniform in [−1, 1] split between them within binomial error.
* x' = x, y' = y/2 has a line of fixed points (the x axis): every start settles on its own member, one family.
"""
import numba
import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis import classify

from .analysis.textbook import henon_jacobian
from .analysis.textbook import henon_step as henon


@numba.njit
def cubic(x, p, out):
    out[0] = p[0] * x[0] - x[0] ** 3


@numba.njit
def cubic_jacobian(x, p, out):
    out[0, 0] = p[0] - 3.0 * x[0] ** 2


@numba.njit
def line_of_fixed_points(x, p, out):
    out[0] = x[0]
    out[1] = p[0] * x[1]


@numba.njit
def line_jacobian(x, p, out):
    out[0, 0] = 1.0
    out[0, 1] = 0.0
    out[1, 0] = 0.0
    out[1, 1] = p[0]


HENON = mf.Map(henon, henon_jacobian, [0.1, 0.1], {"a": 1.4, "b": 0.3}, box=([-0.5, -0.5], [0.5, 0.5]))


def henon_fixed_point(a, b=0.3):
    x = (-(1 - b) + np.sqrt((1 - b) ** 2 + 4 * a)) / (2 * a)
    return np.array([x, b * x])


def test_simulate_and_classify_the_henon_attractor():
    traj = mf.simulate(HENON, 100_000, 1_000, lyapunov=True)
    verdict = classify(traj)
    assert verdict.label == "chaotic"
    # the literature's 0.41922 within three of the run's block standard errors (0.0013 here)
    assert abs(traj.lyapunov[0] - 0.41922) < 3 * traj.lyapunov_stderr[0]
    assert traj.lyapunov[0] + traj.lyapunov[1] == pytest.approx(np.log(0.3), abs=1e-9)   # det J = −b


def test_the_census_finds_the_one_henon_attractor_and_leaves_escapes_unresolved():
    census = mf.find_attractors(HENON, 32, 20_000, 10_000, lyapunov=True)
    assert [(a.label, a.period) for a in census.attractors] == [("chaotic", 0)]
    assert 0 <= census.unresolved_fraction < 0.5          # starts outside the basin escape to infinity
    assert census.attractors[0].fraction == pytest.approx(1 - census.unresolved_fraction)


def test_a_census_where_every_start_escapes_has_no_attractor():
    far = mf.Map(henon, henon_jacobian, [5.0, 5.0], {"a": 1.4, "b": 0.3}, box=([4.0, 4.0], [6.0, 6.0]))
    census = mf.find_attractors(far, 8, 2_000, 1_000, lyapunov=True)
    assert census.attractors == [] and census.unresolved_fraction == 1.0


def test_henon_fold_and_flip_of_the_fixed_point():
    flip, = mf.bifurcations(HENON.replace(a=0.2), "a", (0.2, 0.5), transient=1_000)
    assert flip.kind == "period_doubling" and flip.value == pytest.approx(0.3675, abs=1e-9)
    np.testing.assert_allclose(flip.points[0], henon_fixed_point(0.3675), atol=1e-8)
    fold, = mf.bifurcations(HENON.replace(a=0.2), "a", (0.2, -0.3), transient=1_000)
    assert fold.kind == "fold" and fold.value == pytest.approx(-0.1225, abs=1e-9)


def test_periodic_orbit_of_the_henon_two_cycle():
    # past the flip the 2-cycle's points solve x² − (1 − b) x / a + ((1 − b)² − a) / a² = 0 (Hénon 1976)
    a, b = 0.9, 0.3
    orbit = mf.periodic_orbit(HENON.replace(a=a), transient=1_000)
    assert orbit.points.shape == (2, 2) and orbit.stable
    np.testing.assert_allclose(np.sort(orbit.points[:, 0]),
                               np.sort(np.roots([1.0, -(1 - b) / a, ((1 - b) ** 2 - a) / a ** 2])), atol=1e-10)


def test_continue_attractors_follows_the_fixed_point_and_the_two_cycle():
    found = mf.continue_attractors(HENON, "a", [0.2, 0.3, 0.4, 0.5], 16, 4_000, 2_000, lyapunov=True)
    labels = [[(a.label, a.period) for a in c.attractors] for c in found.censuses]
    assert labels == [[("fixed_point", 1)]] * 2 + [[("periodic", 2)]] * 2
    # each branch keeps its id; the flip starts a new one (docs/attractors.md §4: a lone fixed point's W1
    # distance to its two daughters is half their extent, above the matching threshold 0.25)
    assert [ids.tolist() for ids in found.ids] == [[0], [0], [1], [1]]
    np.testing.assert_allclose(found.censuses[0].attractors[0].points[0], henon_fixed_point(0.2), atol=1e-12)


@pytest.mark.parametrize("a, label, period", [(1.5, "fixed_point", 1), (2.1, "periodic", 2), (2.4, "chaotic", 0)])
def test_mirror_attractors_of_a_symmetric_map_have_mirror_basins(a, label, period):
    census = mf.find_attractors(mf.Map(cubic, cubic_jacobian, [0.0], {"a": a}, box=([-1.0], [1.0])), 400, 4_000,
                                2_000, lyapunov=True)
    assert census.unresolved_fraction == 0
    assert [(x.label, x.period, x.family) for x in census.attractors] == [(label, period, 0)] * 2
    # mirror images: one's summary is the other's reflected (quantile functions: q_k → −q_{Q−1−k})
    first, second = (x.summary[:, 0] for x in census.attractors)
    np.testing.assert_allclose(first, -second[::-1], atol=0.05 * census.attractors[0].scale)
    # each basin half of the starts: within three binomial standard errors √(¼/400) = 0.025
    assert abs(census.attractors[0].fraction - 0.5) < 3 * 0.025
    # printed, a census is a line per attractor, not its arrays
    lines = repr(census).splitlines()
    assert lines[0] == "Census of 400 starts: 2 attractors, 0.0% unresolved" and len(lines) == 3
    assert lines[1].startswith(f"  #0 {label}{'(2)' if label == 'periodic' else ''}: ")


def test_a_line_of_fixed_points_is_one_family():
    line = mf.Map(line_of_fixed_points, line_jacobian, [0.0, 0.0], {"contraction": 0.5}, box=([-1, -1], [1, 1]))
    starts = line.sample(24, seed=3)
    census = mf.find_attractors(line, starts, 2_000, 1_000)
    assert len(census.attractors) == 1
    family = census.attractors[0]
    assert (family.label, family.period, family.family, family.fraction) == ("fixed_point", 1, 24, 1.0)
    # how the attractor depends on the start: the fixed point (x0, 0) of every start (x0, y0)
    np.testing.assert_allclose(np.sort(family.points[:, 0]), np.sort([s[0] for s in starts]), atol=1e-12)
    np.testing.assert_allclose(family.points[:, 1], 0.0, atol=1e-12)
    assert census.assignment.tolist() == [0] * 24


def test_the_pid_controlled_model_reports_its_fixed_points_as_one_family():
    # the controller's reference is the start's own newest attention row: every start its own fixed point
    model = mf.presets.paper(beta_o=1.3).replace(control=mf.Control(kp=0.3, ki=0.1, kd=0.2, rho=0.95))
    census = mf.find_attractors(model, 16, 40_000, 20_000, progress=False)
    family = census.attractors[0]
    assert family.label == "fixed_point" and family.family >= 12 and family.fraction >= 0.75
    assert len(census.attractors) <= 3


def test_isolated_cycles_are_not_families():
    census = mf.find_attractors(mf.presets.paper(beta_o=2.8), 64, 40_000, 20_000, progress=False)
    assert census.attractors and all(a.family == 0 for a in census.attractors)
