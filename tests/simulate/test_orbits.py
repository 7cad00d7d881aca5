"""Periodic orbits and located bifurcations of the paper model, checked against computations that share
nothing with the code under test: Jacobians by central differences of the plain-numpy map, single shooting
on the L-step map, bisection on max|μ| = 1; the simulated dynamics on either side of a period doubling; the
torus frequency the classifier measures past the Neimark–Sacker point."""

import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis import classify
from meanfield.attention_orbits import confirm_cycle
from meanfield.errors import ConfigError
from meanfield.model.equations import mean_field_step, step_tables

from ..by_hand import central_jacobian, n_step_map

L = 4  # the paper model's context (presets/paper.toml)


def settled(beta, steps=20_000, start=None):
    model = mf.presets.paper(beta_o=beta)
    state = model.checkpoint if start is None else start
    att, pe = np.asarray(state.att, dtype=float), np.asarray(state.pe, dtype=float)
    tables = step_tables(model)
    for _ in range(steps):
        att, pe, _ = mean_field_step(model, att, pe, tables)
    return model, att, pe


def rest_cycle_modulus(beta, x_guess, pe):
    """max|μ| of the L-step map's fixed point, by single-shooting Newton with central-difference Jacobians."""
    model = mf.presets.paper(beta_o=beta)
    f = n_step_map(model, pe, L)
    x = x_guess.copy()
    for _ in range(20):
        step = np.linalg.solve(central_jacobian(f, x) - np.eye(x.size), -(f(x) - x))
        x = x + step
        if np.abs(step).max() < 1e-14:
            break
    return np.abs(np.linalg.eigvals(central_jacobian(f, x))).max(), x


@pytest.fixture(scope="module")
def neimark_sacker():
    found = mf.bifurcations(mf.presets.paper(), "beta_o", (1.24, 1.245))
    return found


def test_rest_cycle_loses_stability_in_one_neimark_sacker_point(neimark_sacker):
    assert [b.kind for b in neimark_sacker] == ["neimark_sacker"]
    point = neimark_sacker[0]
    # measured independently before this code existed (issue text: β_o ≈ 1.2434445, angle ≈ 0.2419·2π per L)
    assert abs(point.value - 1.2434445) < 1e-6
    assert abs(point.rotation_number - 0.2419) < 1e-3
    assert point.period == L


def test_the_continued_branch_is_returned_with_the_points(neimark_sacker):
    branch = neimark_sacker.branch
    values = np.asarray(branch["value"])
    assert values[0] == pytest.approx(1.24) and values.max() >= 1.2434445        # it ran across the point
    stable = np.asarray(branch["stable"])
    # the rest cycle is stable before the Neimark–Sacker point and unstable after it
    assert stable[values < 1.2434].all() and not stable[values > 1.2435].any()


def test_neimark_sacker_point_agrees_with_finite_differences(neimark_sacker):
    _, att, pe = settled(1.2434)
    x = att.ravel()
    lo, hi = 1.2430, 1.2440
    assert rest_cycle_modulus(lo, x, pe)[0] < 1 < rest_cycle_modulus(hi, x, pe)[0]
    while hi - lo > 1e-11:
        mid = (lo + hi) / 2
        modulus, x = rest_cycle_modulus(mid, x, pe)
        lo, hi = (mid, hi) if modulus < 1 else (lo, mid)
    # 1e-9: the documented accuracy; the central differences move max|μ| by ~7e-12, i.e. β_o by ~6e-12
    assert abs(neimark_sacker[0].value - (lo + hi) / 2) <= 1e-9


@pytest.mark.slow
def test_rotation_number_continues_into_the_torus_frequency(neimark_sacker):
    # just past the Neimark–Sacker point the orbit lies on an invariant circle whose rotation number starts
    # at the critical pair's (Neimark–Sacker theory): the classifier's torus frequency (cycles per step,
    # folded modulo the forcing 1/L) times L, measured at two β_o and extrapolated linearly to the
    # bifurcation, must meet it. 2e-5: the frequencies' curvature over Δβ ≈ 6e-4 is ≲ 1e-5 (0.2421, 0.2426,
    # 0.2437 at 1.2436, 1.2440, 1.2450), the spectral line estimate's error ~1e-7.
    beta_ns, rho = neimark_sacker[0].value, neimark_sacker[0].rotation_number
    measured = []
    for beta in (1.2436, 1.2440):
        traj = mf.simulate(mf.presets.paper(beta_o=beta), 300_000, 200_000, record=("att",))
        result = classify(traj.att, forcing_period=L)
        assert result.label == "quasi_periodic"
        measured.append(L * result.frequencies[0])
    slope = (measured[1] - measured[0]) / (1.2440 - 1.2436)
    assert abs(measured[0] + slope * (beta_ns - 1.2436) - rho) < 2e-5


@pytest.mark.slow
def test_period_28_cycle_period_doubles():
    model, att, pe = settled(1.27, steps=100_000)
    start = mf.State(att=att, pe=pe)
    found = mf.bifurcations(model, "beta_o", (1.27, 1.2714), state=start, period=28, transient=0)
    assert [b.kind for b in found] == ["period_doubling"]
    pd = found[0]
    assert pd.period == 28 and abs(pd.multipliers[0] + 1) < 1e-6
    # independent: the 28-step map's leading multiplier by central differences, on either side
    for beta, inside in ((pd.value - 2e-5, True), (pd.value + 2e-5, False)):
        orbit = mf.periodic_orbit(mf.presets.paper(beta_o=beta), mf.State(att=pd.points[0].reshape(L, -1), pe=pe),
                                  28)
        f = n_step_map(mf.presets.paper(beta_o=beta), pe, 28)
        mu = np.linalg.eigvals(central_jacobian(f, orbit.points[0]))
        leading = mu[np.argmax(np.abs(mu))]
        assert abs(leading.imag) < 1e-9 and (leading.real > -1) == inside


def test_bad_arguments_are_refused_before_any_work():
    model = mf.presets.paper()
    with pytest.raises(ConfigError, match="parameter = 'beta'"):
        mf.bifurcations(model, "beta", (1.2, 1.3))
    with pytest.raises(ConfigError, match="interval"):
        mf.bifurcations(model, "beta_o", (1.2, 1.2))
    with pytest.raises(ConfigError, match="resolution"):
        mf.bifurcations(model, "beta_o", (1.2, 1.3), resolution=1.0)


@pytest.mark.slow
def test_slow_approach_to_the_rest_cycle_is_confirmed_by_its_decay_rate():
    """Just below the Neimark–Sacker point the rest cycle attracts with |μ| ≈ 0.9998 per L steps: after
    300 000 steps the state still approaches it. The confirmed orbit's leading multiplier must equal the decay
    rate of the distance to it measured on the numpy map (a least-squares slope of log distance over 20 000
    periods: the rotating pair makes log d oscillate by O(1), so the slope's error is ~1/20 000² · O(1) per
    period ≪ 1e-9 — measured agreement 3e-11)."""
    model = mf.presets.paper(beta_o=1.2433)
    state = mf.simulate(model, 300_000).final_state
    orbit = confirm_cycle(model, state, L)
    assert orbit is not None and orbit.stable
    att, pe = np.asarray(state.att, dtype=float), np.asarray(state.pe, dtype=float)
    distances, tables = [], step_tables(model)
    for t in range(20_000 * L):
        if t % L == 0:
            distances.append(np.abs(att.ravel() - orbit.points[0]).max())
        att, pe, _ = mean_field_step(model, att, pe, tables)
    rate = np.exp(np.polyfit(np.arange(len(distances)), np.log(distances), 1)[0])
    assert 0.999 < abs(orbit.multipliers[0]) < 1
    assert abs(rate - abs(orbit.multipliers[0])) < 1e-9


def test_a_cycle_that_lost_stability_is_not_confirmed():
    """Past the Neimark–Sacker point (β_o = 1.2436) the rest cycle still exists (Newton converges) but is a
    repeller: a state on the torus is not confirmed as converging to it, nor to a period-28 cycle."""
    model = mf.presets.paper(beta_o=1.2436)
    state = mf.simulate(model, 100_000).final_state
    assert mf.periodic_orbit(model, state, L).stable is False
    assert confirm_cycle(model, state, L) is None
    assert confirm_cycle(model, state, 28) is None


def test_settling_by_the_kernel_is_the_numpy_map_to_rounding():
    """Newton's start is settled by the compiled kernel, not the numpy map it then solves: both must agree
    (1e-13: rounding of 3 000 steps of a contracting map, measured 1e-16 … 1e-15), from a full window, from one
    row (grown to L rows first) and with no steps at all; PID control is left out, as in the orbit's map."""
    from meanfield.attention_orbits import settle
    model = mf.presets.paper(beta_o=1.2).replace(**{"control.kp": 0.3})
    plain = mf.presets.paper(beta_o=1.2)
    one_row = mf.State(att=plain.checkpoint.att[:1], pe=plain.checkpoint.pe)
    for state, steps in ((plain.checkpoint, 3_000), (one_row, 0)):
        _, att, pe = settled(1.2, max(steps, L - 1), start=state)
        settled_state = settle(model, state, steps)
        assert settled_state.att.shape == (L, 3)
        np.testing.assert_allclose(settled_state.att, att[:L], rtol=0, atol=1e-13)
        np.testing.assert_array_equal(settled_state.pe, pe)
    full = settle(plain, plain.checkpoint, 0)
    np.testing.assert_array_equal(full.att, plain.checkpoint.att)


def test_a_model_without_checkpoint_needs_a_state():
    """A model from weights has no checkpoint: the orbit tools say so in one ConfigError naming ``state``."""
    wide = mf.presets.random(seed=0, n_features=4, semantic_bits=32, context=4, pe_bits=2)
    for call in (lambda: mf.periodic_orbit(wide), lambda: mf.bifurcations(wide, "beta_o", (0.5, 1.0))):
        with pytest.raises(mf.ConfigError, match="state: this model has no checkpoint"):
            call()


def test_the_census_system_of_a_model_is_the_model_to_the_orbit_tools():
    from meanfield.systems import AttentionSystem
    paper = mf.presets.paper()
    as_system = mf.bifurcations(AttentionSystem(paper), "beta_o", (1.24, 1.245))
    as_model = mf.bifurcations(paper, "beta_o", (1.24, 1.245))
    assert [(b.kind, b.value) for b in as_system] == [(b.kind, b.value) for b in as_model]
