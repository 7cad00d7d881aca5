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


@numba.njit(cache=True)
def cubic(x, p, out):
    out[0] = p[0] * x[0] - x[0] ** 3


@numba.njit(cache=True)
def cubic_jacobian(x, p, out):
    out[0, 0] = p[0] - 3.0 * x[0] ** 2


@numba.njit(cache=True)
def line_of_fixed_points(x, p, out):
    out[0] = x[0]
    out[1] = p[0] * x[1]


@numba.njit(cache=True)
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


def henon_escapes(n, steps, a=1.4, b=0.3):
    """Which of the ``n`` census starts of HENON (seed 0) escape to infinity within ``steps`` iterations, by
    iterating x' = 1 − a x² + y, y' = b x here in numpy. The starts as docs/attractors.md §1 draws them for a Map:
    start i uniform in the box from its own Philox generator keyed by (seed, i)."""
    low, high = np.array([-0.5, -0.5]), np.array([0.5, 0.5])
    starts = np.array([low + (high - low) * np.random.Generator(np.random.Philox(np.random.SeedSequence((0, i))))
                       .random(2) for i in range(n)])
    x, y = starts[:, 0].copy(), starts[:, 1].copy()
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(steps):
            x, y = 1 - a * x * x + y, b * x
    return ~np.isfinite(x)         # an escaping orbit's |x| squares each step: it overflows long before 20 000


def test_the_census_finds_the_one_henon_attractor_and_leaves_escapes_unsettled():
    census = mf.find_attractors(HENON, 32, 20_000, 10_000, lyapunov=True)
    assert [(a.label, a.period) for a in census.attractors] == [("chaotic", 0)]
    # starts outside the basin escape to infinity: exactly those are unsettled, every other start is on the
    # one attractor (5 of the 32 escape; counted here, not by the census)
    escapes = henon_escapes(32, 20_000)
    assert 0 < escapes.sum() < 32
    assert census.unsettled_fraction == escapes.sum() / 32
    assert census.assignment.tolist() == np.where(escapes, -1, 0).tolist()
    assert census.attractors[0].fraction == pytest.approx(1 - census.unsettled_fraction)


def test_a_census_where_every_start_escapes_has_no_attractor():
    far = mf.Map(henon, henon_jacobian, [5.0, 5.0], {"a": 1.4, "b": 0.3}, box=([4.0, 4.0], [6.0, 6.0]))
    census = mf.find_attractors(far, 8, 2_000, 1_000, lyapunov=True)
    assert census.attractors == [] and census.unsettled_fraction == 1.0


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
    found = mf.continue_attractors(HENON, {"a": [0.2, 0.3, 0.4, 0.5]}, 16, 4_000, 2_000, lyapunov=True)
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
    assert census.unsettled_fraction == 0
    assert [(x.label, x.period, x.family) for x in census.attractors] == [(label, period, 0)] * 2
    # mirror images: one's summary is the other's reflected (quantile functions: q_k → −q_{Q−1−k})
    first, second = (x.summary[:, 0] for x in census.attractors)
    np.testing.assert_allclose(first, -second[::-1], atol=0.05 * census.attractors[0].scale)
    # each basin half of the starts: within three binomial standard errors √(¼/400) = 0.025
    assert abs(census.attractors[0].fraction - 0.5) < 3 * 0.025
    # printed, a census is a line per attractor, not its arrays
    lines = repr(census).splitlines()
    assert lines[0] == "Census of 400 starts: 2 attractors, 0.0% unsettled" and len(lines) == 3
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


def settled_periods(model, starts, steps, transient, max_period=20):
    """Per start, the least p ≤ ``max_period`` with A(t + p) = A(t) over the recorded tail of a plain run (the
    attention row from ``transient`` on), 0 if none. 1e-9: a settled cycle repeats to rounding (≤ 2e-15 here),
    while a wrong lag of these runs moves the row by ≥ 1e-4, five decades either side."""
    from meanfield.simulation import simulate_batch
    run = simulate_batch(model, steps, transient, parameters={"beta_o": np.full(len(starts), model.beta_o)},
                         start=starts, record=("att",))
    tails = run.records["att"]
    return [next((p for p in range(1, max_period + 1) if np.abs(t[p:] - t[:-p]).max() <= 1e-9), 0) for t in tails]


def test_the_pid_controlled_model_reports_its_fixed_points_as_one_family():
    # the controller's reference is the start's own newest attention row: every start its own fixed point
    from meanfield.systems import AttentionSystem
    model = mf.presets.paper(beta_o=1.3).replace(control=mf.Control(kp=0.3, ki=0.1, kd=0.2, rho=0.95))
    census = mf.find_attractors(model, 16, 40_000, 20_000, compute=mf.Compute(progress=False))
    # counted here: each of the census's starts (seed 0) run plainly, its tail's period read off. A fixed point
    # of the L-step map repeats with the forcing, L = 4 steps (15 starts); the other start settles on a cycle of
    # period 2L = 8, which also moves with its start
    periods = settled_periods(model, AttentionSystem(model).sample(16, 0), 40_000, 20_000)
    at_rest, cycling = periods.count(4), periods.count(8)
    assert at_rest + cycling == 16 and at_rest >= 12
    expected = [("fixed_point", 4, at_rest, at_rest / 16)] + [("periodic", 8, cycling, cycling / 16)] * (cycling > 0)
    assert [(a.label, a.period, a.family, a.fraction) for a in census.attractors] == expected
    assert census.assignment.tolist() == [0 if p == 4 else 1 for p in periods]


def test_isolated_cycles_are_not_families():
    census = mf.find_attractors(mf.presets.paper(beta_o=2.8), 64, 40_000, 20_000, compute=mf.Compute(progress=False))
    assert census.attractors and all(a.family == 0 for a in census.attractors)
