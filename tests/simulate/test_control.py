"""The controlled step (docs/model.md §5.1): zero gains are bitwise the uncontrolled map, the kernel agrees with the
numpy transcription, the P fixed point solves a* = F(a*) + K_P (r - a*), loop stability, clamp, continuation, bad
gains."""
import math

import numpy as np
import pytest
from scipy.optimize import fsolve

import meanfield as mf
from meanfield.analysis import classify
from meanfield.model.equations import controlled_step, mean_field_step
from meanfield.model.layout import batch_parameters, control_start

from .helpers import with_control


def test_zero_gains_bitwise(paper):
    """All gains 0 (with ρ, κ, I_max, reference set) reproduces the uncontrolled run bitwise, in a batch
    that mixes controlled points too, exponents and final state included."""
    model = paper.replace(beta_o=1.3)
    base = mf.simulate_batch(model, 400, 200, lyapunov=True, parameters={"beta_o": [1.3, 1.35]})
    zero = model.replace(**{"control.rho": 0.5, "control.kappa": 2.0, "control.i_max": 0.3,
                            "control.reference": (0.1, 0.2, 0.3)})
    mixed = mf.simulate_batch(zero, 400, 200, lyapunov=12, parameters={
        "beta_o": [1.3, 1.35, 1.3], "control.kp": [0.0, 0.0, 0.4]})
    for name in mf.OBSERVABLES:
        assert np.array_equal(base.records[name], mixed.records[name][:2])
    assert np.array_equal(base.lyapunov, mixed.lyapunov[:2])
    assert np.array_equal(base.final_att, mixed.final_att[:2])
    assert not np.array_equal(base.records["att"][0], mixed.records["att"][2])
    assert mixed.final_state(0).control is None and mixed.final_state(2).control is not None
    assert np.all(mixed.diverged_at == -1) and np.isnan(mixed.max_integral[0])


def test_kernel_matches_numpy_controlled_step(paper):
    """The kernel's PID step equals the plain-numpy transcription (model.controlled_step), PE and
    token start included (window growing from D = 1)."""
    model = with_control(paper.replace(beta_o=1.3), kp=0.3, ki=0.2, kd=0.15, rho=0.9, i_max=0.05)
    for start in (model.checkpoint, mf.State.from_pattern(model, 0, "o", True)):
        window = np.pad(start.att, ((0, model.context - len(start.att)), (0, 0)))
        ctrl = control_start(batch_parameters(model), window[None])[0]
        att, pe, rows = start.att, start.pe, []
        for _ in range(60):
            att, pe, ctrl, recorded = controlled_step(model, att, pe, ctrl)
            rows.append(recorded["att"])
        traj = mf.simulate(model, 60, start=start, record=("att",))
        np.testing.assert_allclose(traj.att, np.array(rows), rtol=0, atol=1e-13)
        np.testing.assert_allclose(traj.final_state.control, ctrl, rtol=0, atol=1e-13)


def test_p_fixed_point_solves_control_equation(paper):
    """ε = 0 makes the map PE-free: a window of equal rows a* is a fixed point when a* = F(a*) + K_P (r - a*),
    F(a) = mean_field_step of that window (solved independently with fsolve); it moves toward r as K_P grows."""
    model = paper.replace(epsilon=0.0)
    ref = np.array([0.3, -0.2, 0.1])

    def uncontrolled(a):
        return mean_field_step(model, np.tile(a, (model.context, 1)), model.checkpoint.pe)[2]["att"]

    distances = []
    for kp in (0.1, 0.3, 0.6, 0.9):
        traj = mf.simulate(with_control(model, kp=kp, reference=tuple(ref)), 3000, 2990, record=("att",))
        solution = fsolve(lambda a: uncontrolled(a) + kp * (ref - a) - a, ref, xtol=1e-13)
        np.testing.assert_allclose(traj.att[-1], solution, rtol=0, atol=1e-10)
        assert np.ptp(traj.att, axis=0).max() < 1e-12
        distances.append(np.linalg.norm(traj.att[-1] - ref))
    assert np.all(np.diff(distances) < 0)


def test_default_reference_is_kappa_times_newest_start_row(paper):
    params = batch_parameters(with_control(paper, kp=0.2, kappa=0.5))
    ctrl = control_start(params, paper.checkpoint.att[None])[0]
    np.testing.assert_array_equal(ctrl[0], 0.5 * paper.checkpoint.att[0])
    np.testing.assert_array_equal(ctrl[1], 0.0)
    np.testing.assert_array_equal(ctrl[2], ctrl[0] - paper.checkpoint.att[0])     # e_{-1} = e_0


def test_loop_stability(paper):
    """Near a fixed point the P loop multiplies deviations by about -K_P: K_P = 3 diverges (flagged, stopped,
    classified divergent, never inf), K_P = 0.5 stays bounded."""
    result = mf.simulate_batch(with_control(paper, kp=1.0), 3000, 1000, lyapunov=4,
                               parameters={"control.kp": [3.0, 0.5]})
    assert result.divergent.tolist() == [True, False]
    step = result.diverged_at[0]
    assert 0 < step < 100
    att = result.records["att"]
    assert not np.any(np.isinf(att))
    assert np.all(np.isnan(att[0, max(step - 1000, 0):]))              # no value past the divergence
    assert np.all(np.abs(result.final_att[0]) <= mf.model.DIVERGENCE_BOUND)
    assert classify(att[0], result.lyapunov[0]).label == "divergent"
    assert np.all(np.isfinite(att[1])) and np.abs(att[1]).max() < 2
    assert classify(att[1], result.lyapunov[1], result.lyapunov_stderr[1]).label != "divergent"


def test_pi_clamp_bounded(paper):
    """PI with a clamp stays bounded and its integral respects the clamp; without K_I the integral may
    drift (a P loop never reads it) and that is not divergence."""
    traj = mf.simulate(with_control(paper.replace(beta_o=1.3), kp=0.3, ki=0.5, i_max=0.05), 4000, 2000)
    assert traj.diverged_at == -1 and traj.max_integral <= 0.05
    assert np.abs(traj.final_state.control[1]).max() <= 0.05
    assert np.all(np.isfinite(traj.att)) and np.abs(traj.att).max() < 2
    p_only = mf.simulate(with_control(paper, kp=0.5), 4000, 3999)
    assert p_only.diverged_at == -1 and p_only.max_integral > 1


def test_controlled_continuation_is_seamless(paper):
    """A controlled run continued from its final state (which carries r, I, e_prev) equals one long run."""
    model = with_control(paper.replace(beta_o=1.3), kp=0.2, ki=0.1, kd=0.1, rho=0.95)
    whole = mf.simulate(model, 800, 0, record=("att",))
    first = mf.simulate(model, 400, 0, record=("att",))
    second = mf.simulate(model, 400, 0, start=first.final_state, record=("att",))
    assert np.array_equal(whole.att, np.vstack([first.att, second.att]))


@pytest.mark.parametrize("gains", [dict(kp=math.nan), dict(ki=math.inf), dict(rho=-0.1), dict(rho=1.5),
                                   dict(rho=math.nan), dict(i_max=0.0), dict(i_max=math.nan)])
def test_bad_gains(gains):
    with pytest.raises(mf.ConfigError, match="control"):
        mf.Control(**gains)


@pytest.mark.parametrize("axis, values", [("control.kp", [0.1, math.nan]), ("control.rho", [0.5, 1.2]),
                                          ("control.rho", [-0.5]), ("control.i_max", [0.0]),
                                          ("control.gain", [1.0])])
def test_bad_gain_axes(paper, axis, values):
    with pytest.raises(mf.ConfigError, match="control"):
        mf.simulate_batch(paper, 10, parameters={axis: values})


def test_reference_length_checked(paper):
    with pytest.raises(mf.ConfigError, match="reference"):
        mf.simulate(with_control(paper, kp=0.1, reference=(0.1, 0.2)), 10)
