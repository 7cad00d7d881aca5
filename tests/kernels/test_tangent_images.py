"""The tangent map from tangent images (meanfield/kernels/tangent_images.py, docs/model.md §4.1) against
computations that do not use it: the same kernels' token Jacobians, Newton's multipliers of stable cycles, a numpy
two-trajectory (Benettin) estimate and the mean log-determinant of the step's Jacobian.

The run-time-size kernels (windows of more than 16 entries) use the images for k < 3M/4 exponents and the
Jacobians otherwise, so k = 5 and k = 6 at M = 8 run the two; with modified Gram–Schmidt a vector never depends on
those after it, so the leading 5 exponents are the same numbers computed two ways.
"""
import numpy as np
import pytest

import meanfield as mf
from meanfield.model.equations import mean_field_step
from meanfield.simulation import attention_jacobian

QUIET = mf.Compute(progress=False)


def start_of(model, seed=0, depth=None):
    rng = np.random.default_rng(seed)
    rows = model.context if depth is None else depth
    return mf.State(att=rng.uniform(-1, 1, (rows, model.n_features)),
                    pe=rng.choice([-1.0, 1.0], (model.context, model.pe_bits)))


@pytest.fixture(scope="module")
def eight_features():
    return mf.presets.random(seed=3, n_features=8, semantic_bits=64, context=4)


@pytest.mark.parametrize("beta", [0.8, 3.0, 6.0])
def test_images_equal_the_jacobians(eight_features, beta):
    # the same exponents through the images (k = 5) and through the Jacobians (k = 6): a few thousand steps of
    # 32-dimensional QR; the two differ by rounding only (different order of the same sums), which the QR's
    # normalisation keeps from growing: 1e-12 absolute on exponents of order 0.01-1
    model = eight_features.replace(beta_o=beta)
    images = mf.simulate(model, 3000, 1000, start=start_of(model), lyapunov=5, record=(), compute=QUIET)
    jacobians = mf.simulate(model, 3000, 1000, start=start_of(model), lyapunov=6, record=(), compute=QUIET)
    np.testing.assert_allclose(images.lyapunov, jacobians.lyapunov[:5], rtol=0, atol=1e-12)
    np.testing.assert_allclose(images.lyapunov_blocks, jacobians.lyapunov_blocks[:, :5], rtol=0, atol=1e-11)


def test_images_equal_the_jacobians_under_pid_control(eight_features):
    # the PID loop's extended tangent map (docs/model.md §5.2) on top of the images; a partial start window (2 of
    # 4 rows) and no transient, so the images of rows the window does not hold yet are read with weight 0
    model = eight_features.replace(beta_o=2.0, control=mf.Control(kp=0.3, ki=0.1, kd=0.05, rho=0.9))
    start = start_of(model, seed=1, depth=4)
    images = mf.simulate(model, 1500, 100, start=start, lyapunov=5, record=(), compute=QUIET)
    jacobians = mf.simulate(model, 1500, 100, start=start, lyapunov=6, record=(), compute=QUIET)
    np.testing.assert_allclose(images.lyapunov, jacobians.lyapunov[:5], rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_features", [32, 64])
def test_exponents_of_a_stable_cycle_are_its_newton_multipliers(n_features):
    # on a stable L-cycle the exponents are ln|μ_i| / L of Newton's multipliers (mf.periodic_orbit: its own
    # Jacobians, no tangent vectors); the run's finite-time estimate is within 3 block standard errors (the
    # members of a complex pair, of one modulus, split by ~1 standard error over a finite run)
    model = mf.presets.random(seed=5, n_features=n_features, semantic_bits=128, pe_bits=2, context=4, beta_o=0.6)
    settle = mf.simulate(model, 4000, 3999, start=start_of(model), record=(), compute=QUIET)
    orbit = mf.periodic_orbit(model, settle.final_state, period=4)
    assert orbit.stable
    k = 4
    run = mf.simulate(model, 8000, 0, start=settle.final_state, lyapunov=k, record=(), compute=QUIET)
    expected = np.sort(np.log(np.abs(orbit.multipliers)) / 4)[::-1][:k]
    assert np.all(np.abs(run.lyapunov - expected) <= 3 * run.lyapunov_stderr), (run.lyapunov, expected)


@pytest.mark.integration   # 2·10^4 steps of the numpy map, twice
def test_leading_exponent_equals_a_numpy_two_trajectory_estimate():
    # Benettin's method on the numpy map (meanfield.model.equations, independent of the kernels) at M = 16,
    # L = 8, on a chaotic orbit (λ1 ≈ 0.03 per step); the two are finite-time estimates on orbits that separate
    # at rounding level, so they agree within their statistical error: 3 standard errors of the difference
    model = mf.presets.random(seed=2, n_features=16, semantic_bits=128, context=8, beta_o=10.5)
    start = mf.simulate(model, 3000, 2999, start=start_of(model), record=(), compute=QUIET).final_state
    n_steps = 20000
    spectrum = mf.simulate(model, n_steps, 0, start=start, lyapunov=1, record=(), compute=QUIET)
    att, pe = start.att.copy(), start.pe.copy()
    rng = np.random.default_rng(0)
    size = 1e-9
    delta = rng.normal(size=att.shape)
    other = att + size * delta / np.linalg.norm(delta)
    logs = np.empty(n_steps)
    for t in range(n_steps):
        att, pe_next, _ = mean_field_step(model, att, pe)
        other, _, _ = mean_field_step(model, other, pe)
        pe = pe_next
        dist = np.linalg.norm(other - att)
        logs[t] = np.log(dist / size)
        other = att + (other - att) * (size / dist)
    benettin_se = logs.reshape(20, -1).mean(1).std(ddof=1) / np.sqrt(20)
    stderr = np.hypot(spectrum.lyapunov_stderr[0], benettin_se)
    assert spectrum.lyapunov[0] > 5 * spectrum.lyapunov_stderr[0]
    assert abs(logs.mean() - spectrum.lyapunov[0]) < 3 * stderr


def test_all_exponents_sum_to_the_mean_log_determinant():
    # Σλ = <ln|det J|> exactly (a product of Jacobians): all 32 exponents of an M = 8, L = 4 model (the run-time
    # kernels, here through the Jacobians: k ≥ 3M/4) against the step's Jacobian along the recorded orbit
    model = mf.presets.random(seed=3, n_features=8, semantic_bits=64, context=4, beta_o=0.9)
    start = mf.simulate(model, 500, 499, start=start_of(model), record=(), compute=QUIET).final_state
    n = 400
    rec = mf.simulate(model, n, 0, start=start, record=("att",), compute=QUIET)
    spectrum = mf.simulate(model, n, 0, start=start, lyapunov=True, record=(), compute=QUIET)
    att = np.concatenate([start.att[::-1], rec.att])           # oldest first
    log_det = []
    for t in range(n):
        window = att[t:t + 4][::-1]
        log_det.append(np.linalg.slogdet(attention_jacobian(model, mf.State(window, np.roll(start.pe, t, axis=0))))[1])
    np.testing.assert_allclose(spectrum.lyapunov.sum(), np.mean(log_det), rtol=1e-9)
