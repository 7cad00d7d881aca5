"""The extended tangent map of the controlled system (docs/model.md §5.2): x = [A (L·M), I (M), e_prev (M)].
The kernel's analytic Jacobian against central finite differences of the numpy step, and the kernel's
extended Lyapunov spectrum against a numpy QR iteration of that Jacobian."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.kernels.pid_tangent import controlled_jacobian
from meanfield.model.equations import controlled_step
from meanfield.model.layout import batch_parameters, control_start

from .helpers import with_control


def numpy_map(model, pe, ref):
    """x -> x' of the controlled map, by model.controlled_step."""
    size = model.context * model.n_features

    def step(x):
        att = x[:size].reshape(model.context, model.n_features)
        ctrl = np.stack([ref, x[size:size + model.n_features], x[size + model.n_features:]])
        att_next, _, ctrl_next, _ = controlled_step(model, att, pe, ctrl)
        return np.concatenate([att_next.ravel(), ctrl_next[1], ctrl_next[2]])

    return step


@pytest.mark.parametrize("beta_o, gains", [
    (1.3, dict(kp=0.3, ki=0.2, kd=0.15, rho=0.9)),
    (2.5, dict(kp=0.2, ki=0.1, kd=0.1, rho=1.0, kappa=0.7)),
    (1.0, dict(kp=0.2, kd=0.5)),                      # K_I = 0: the integral is not a coordinate
])
def test_jacobian_matches_finite_differences(paper, beta_o, gains):
    model = with_control(paper.replace(beta_o=beta_o), **gains)
    rng = np.random.default_rng(3)
    state = mf.simulate(model, 50, 49, record=("att",)).final_state        # a typical controlled state
    ctrl = state.control.copy()
    ctrl[1] += 0.01 * rng.standard_normal(model.n_features)                  # away from any kink
    x = np.concatenate([state.att.ravel(), ctrl[1], ctrl[2]])
    step = numpy_map(model, state.pe, ctrl[0])
    h = 1e-6
    fd = np.column_stack([(step(x + h * e) - step(x - h * e)) / (2 * h) for e in np.eye(x.size)])
    jac = controlled_jacobian(model, state, ctrl)
    size = model.context * model.n_features
    if gains.get("ki", 0.0) == 0.0:
        fd[size:size + model.n_features] = 0.0       # δI' is dropped when nothing reads I
    scale = max(1.0, np.abs(fd).max())
    np.testing.assert_allclose(jac, fd, rtol=0, atol=2e-6 * scale)


def test_clamp_kills_integral_derivative(paper):
    """Where the clamp is active, ∂I'/∂(I, A) = 0; elsewhere ∂I'/∂I = ρ."""
    model = with_control(paper.replace(beta_o=1.3), kp=0.2, ki=0.3, rho=0.8, i_max=0.05)
    state = model.checkpoint
    ctrl = control_start(batch_parameters(model), state.att[None], [state])[0]
    ctrl[1] = [0.2, 0.0, -0.2]                        # components 0 and 2 saturate
    jac = controlled_jacobian(model, state, ctrl)
    rows = model.context * model.n_features + np.arange(3)
    np.testing.assert_array_equal(jac[rows[[0, 2]]], 0.0)
    assert jac[rows[1], rows[1]] == pytest.approx(0.8)


def test_extended_spectrum_matches_numpy_qr(paper):
    """Leading exponents of the kernel's extended tangent dynamics equal a numpy QR iteration of the
    analytic Jacobian along the numpy trajectory (checks the ring layout of the controller coordinates).
    Only the leading ones: the weaker directions of a 150-step product are conditioning-limited (single-pass
    Gram-Schmidt vs Householder differ there by ~1e-2 for the uncontrolled kernel as well)."""
    model = with_control(paper.replace(beta_o=1.3), kp=0.3, ki=0.2, kd=0.1, rho=0.9)
    steps, n = 150, model.context * model.n_features
    traj = mf.simulate(model, steps, 0, lyapunov=mf.Lyapunov(n_blocks=1), record=("att",))
    assert traj.lyapunov.shape == (n + 2 * model.n_features,)
    state = model.checkpoint
    ctrl = control_start(batch_parameters(model), state.att[None], [state])[0]
    att, pe, q = state.att, state.pe, np.eye(n + 2 * model.n_features)
    sums = np.zeros(q.shape[0])
    for _ in range(steps):
        q, r = np.linalg.qr(controlled_jacobian(model, mf.State(att=att, pe=pe), ctrl) @ q)
        sums += np.log(np.abs(np.diag(r)))
        att, pe, ctrl, _ = controlled_step(model, att, pe, ctrl)
    expected = np.sort(sums / steps)[::-1]
    np.testing.assert_allclose(traj.lyapunov[:9], expected[:9], rtol=0, atol=1e-7)
    assert np.all(traj.lyapunov[n + model.n_features:] < -20)          # e_prev directions: -inf up to rounding


def test_p_loop_exponents_have_no_spurious_zero(paper):
    """A stable P fixed point: all finite extended exponents are negative (the never-read integral does
    not add log ρ = 0), and the previous-error directions are -inf."""
    traj = mf.simulate(with_control(paper, kp=0.5), 3000, 1000, lyapunov=True)
    finite = traj.lyapunov[np.isfinite(traj.lyapunov)]
    assert finite.size >= paper.context * paper.n_features and finite.max() < -1e-3
