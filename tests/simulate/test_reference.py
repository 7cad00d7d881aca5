"""The kernel against the reference implementation's own outputs (docs/model.md §9, tests/data)."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.model.equations import mean_field_step
from meanfield.model.state import pattern_token
from meanfield.simulation import attention_jacobian


def one_step(model, att, pe):
    traj = mf.simulate(model, 1, start=mf.State(att, pe))
    return traj


@pytest.mark.parametrize("case", range(7))
def test_one_step_cases(data, case):
    # docs/model.md §9: single steps agree to <= 3e-16; 1e-12 leaves room for summation order only
    cases = data("onestep_cases.npz")
    model = mf.presets.paper(beta_o=float(cases[f"case{case}_beta"]))
    att, pe = cases[f"case{case}_A"], cases[f"case{case}_Pi"]
    traj = one_step(model, att, pe)
    out = cases[f"case{case}_out"]
    depth = traj.final_state.att.shape[0]
    np.testing.assert_allclose(traj.final_state.att.ravel(), out[:depth * 3], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(traj.final_state.pe.ravel(), out[depth * 3:])
    for name in mf.OBSERVABLES:
        np.testing.assert_allclose(getattr(traj, name)[0], cases[f"case{case}_rec_{name}"], rtol=0, atol=1e-12)
    # the math-first numpy map agrees too
    att_next, _, rec = mean_field_step(model, att, pe)
    np.testing.assert_allclose(att_next.ravel(), out[:depth * 3], rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", range(4))
def test_jacobian_matches_reference_autodiff(data, case):
    # spec header: a hand-derived Jacobian matched the reference's autodiff to <= 6e-15
    cases = data("onestep_cases.npz")
    model = mf.presets.paper(beta_o=float(cases[f"case{case}_beta"]))
    jac = attention_jacobian(model, mf.State(cases[f"case{case}_A"], cases[f"case{case}_Pi"]))
    np.testing.assert_allclose(jac, cases[f"case{case}_J"][:12, :12], rtol=0, atol=1e-10)
    # the PE block of the reference Jacobian has no influence on the attention block's exponents
    assert np.all(cases[f"case{case}_J"][12:, :12] == 0)


@pytest.mark.parametrize("beta", [0.5, 2.5])
def test_trajectories_from_checkpoint(data, beta):
    # docs/model.md §9: exact (1e-10) over the first 25 steps; these two betas are not chaotic, so the whole
    # 3000-step run stays reproducible (1e-8 leaves a margin over the measured 5e-12)
    ref = data(f"traj_beta_{beta}.npz")
    traj = mf.simulate(mf.presets.paper(beta_o=beta), 3000)
    for name in mf.OBSERVABLES:
        got = getattr(traj, name)
        np.testing.assert_allclose(got[:25], ref[name][:25], rtol=0, atol=1e-10)
        np.testing.assert_allclose(got, ref[name], rtol=0, atol=1e-8)


def test_start_from_token(data):
    # docs/model.md §2.2, §9: first 30 steps to 1e-10 (β = 1.266 is chaotic: later steps diverge by design)
    ref = data("from_token_Wo0_beta_1.266.npz")
    model = mf.presets.paper(beta_o=1.266)
    np.testing.assert_array_equal(pattern_token(model, 0), ref["x0"])
    traj = mf.simulate(model, 200, start=mf.State.from_token(model, ref["x0"]))
    for name in mf.OBSERVABLES:
        np.testing.assert_allclose(getattr(traj, name)[:30], ref[name][:30], rtol=0, atol=1e-10)


def test_recording_window_and_decimation():
    model = mf.presets.paper(beta_o=1.3)
    full = mf.simulate(model, 400)
    tail = mf.simulate(model, 400, 100, record=mf.Record(("att", "mo_se"), every=7))
    np.testing.assert_array_equal(tail.att, full.att[100::7])
    np.testing.assert_array_equal(tail.mo_se, full.mo_se[100::7])
    assert tail.mv is None


def test_continuation_equals_one_long_run():
    model = mf.presets.paper(beta_o=1.3)
    whole = mf.simulate(model, 300)
    first = mf.simulate(model, 120)
    second = mf.simulate(model, 180, start=first.final_state)
    np.testing.assert_array_equal(np.vstack([first.att, second.att]), whole.att)
