"""Tangent map and Lyapunov spectrum (docs/model.md §4) against independent computations."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.model.equations import mean_field_step
from meanfield.simulation import attention_jacobian


@pytest.mark.parametrize("beta", [0.5, 1.266, 2.5])
def test_tangent_map_equals_central_differences(beta):
    model = mf.presets.paper(beta_o=beta)
    traj = mf.simulate(model, 57, record=())
    state = traj.final_state
    jac = attention_jacobian(model, state)
    step = 1e-6
    numeric = np.empty_like(jac)
    for j in range(jac.shape[1]):
        delta = np.zeros(jac.shape[1])
        delta[j] = step
        up = mean_field_step(model, state.att + delta.reshape(state.att.shape), state.pe)[0].ravel()
        down = mean_field_step(model, state.att - delta.reshape(state.att.shape), state.pe)[0].ravel()
        numeric[:, j] = (up - down) / (2 * step)
    # central differences: truncation O(h² f''') ~ 1e-12·γ² and rounding 1e-16/h ~ 1e-10
    np.testing.assert_allclose(jac, numeric, rtol=0, atol=1e-7 * max(1.0, np.abs(jac).max()))


def window_at(traj_att, pe0, t, first):
    """State (A, Π) consumed by iteration t, from att recorded since iteration ``first``."""
    i = t - first
    return mf.State(traj_att[i - 4:i][::-1], np.roll(pe0, t, axis=0))


@pytest.mark.parametrize("beta", [0.5, 0.9])
def test_sum_of_exponents_is_mean_log_det(beta):
    # Σλ = <log|det J|> exactly (product of Jacobians). Checked where per-step contractions are resolvable
    # in float64; at sharp attention (β ≳ 1.2 with γ = 127) single steps contract some direction by more
    # than e^-37 and the smallest exponents saturate, as in the reference (docs/classification.md §6).
    model = mf.presets.paper(beta_o=beta)
    first, start, n = 396, 400, 600
    rec = mf.simulate(model, start + n, first, record=("att",))
    spectrum = mf.simulate(model, start + n, start, lyapunov=True, record=())
    log_det = [np.linalg.slogdet(attention_jacobian(model, window_at(rec.att, model.checkpoint.pe, t, first)))[1]
               for t in range(start, start + n)]
    assert spectrum.lyapunov.shape == (12,)
    np.testing.assert_allclose(spectrum.lyapunov.sum(), np.mean(log_det), rtol=1e-9)


def test_fixed_point_and_periodic_orbit_are_stable():
    fixed = mf.simulate(mf.presets.paper(beta_o=0.5), 6000, 2000, lyapunov=True, record=())
    assert np.all(fixed.lyapunov < 0)
    assert np.all(np.diff(fixed.lyapunov) <= 0)
    orbit = mf.simulate(mf.presets.paper(beta_o=2.5), 12000, 3000, lyapunov=True, record=())
    # the period-96 orbit (docs/model.md §9): λ1 < 0 by many standard errors
    assert orbit.lyapunov[0] < -5 * orbit.lyapunov_stderr[0]


@pytest.mark.integration   # a long run: 20 000 steps of the numpy map, twice
def test_leading_exponent_equals_two_trajectory_estimate():
    # Benettin's two-trajectory method on the numpy map, independent of the tangent code. The numpy and
    # kernel orbits separate at rounding level within a few hundred steps (docs/model.md §9), so the two are
    # finite-time estimates on different chaotic orbits: compare within their statistical error.
    model = mf.presets.paper(beta_o=1.3)
    start = mf.simulate(model, 3000, record=()).final_state
    n_steps = 20000
    spectrum = mf.simulate(model, n_steps, 0, start=start, lyapunov=1, record=())
    att, pe = start.att.copy(), start.pe.copy()
    rng = np.random.default_rng(0)
    delta = rng.normal(size=att.shape)
    size = 1e-9
    other = att + size * delta / np.linalg.norm(delta)
    total = 0.0
    for _ in range(n_steps):
        att, pe_next, _ = mean_field_step(model, att, pe)
        other, _, _ = mean_field_step(model, other, pe)
        pe = pe_next
        dist = np.linalg.norm(other - att)
        total += np.log(dist / size)
        other = att + (other - att) * (size / dist)
    stderr = spectrum.lyapunov_stderr[0]
    assert 0 < stderr < 0.01
    assert abs(total / n_steps - spectrum.lyapunov[0]) < 5 * np.sqrt(2) * stderr
    assert spectrum.lyapunov[0] > 0.05


def test_qr_interval_is_exact_for_the_leading_exponent():
    model = mf.presets.paper(beta_o=1.3)
    every = mf.simulate(model, 3000, 1000, lyapunov=2, record=())
    sparse = mf.simulate(model, 3000, 1000, lyapunov=mf.Lyapunov(k=2, qr_every=4), record=())
    np.testing.assert_allclose(sparse.lyapunov, every.lyapunov, rtol=0, atol=1e-9)


def test_standard_error_from_blocks():
    traj = mf.simulate(mf.presets.paper(beta_o=1.3), 5000, 1000, lyapunov=mf.Lyapunov(k=3, n_blocks=10), record=())
    blocks = traj.lyapunov_blocks
    assert blocks.shape == (10, 3)
    np.testing.assert_allclose(blocks.mean(0), traj.lyapunov, rtol=1e-12)   # equal-length blocks
    np.testing.assert_allclose(traj.lyapunov_stderr, blocks.std(0, ddof=1) / np.sqrt(10), rtol=1e-12)
