"""The expectation network is the mean-field map (docs/model.md §6.3): with the aligned start it equals the MF."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.finite import aligned_start, simulate_finite, simulate_finite_batch
from meanfield.model.layout import OBSERVABLES
from meanfield.model.state import position_code

ALIGNED_ROWS = 30


@pytest.mark.parametrize("beta", [1.26405, 2.5])
def test_expectation_equals_aligned_mean_field(beta):
    model = mf.presets.paper(beta_o=beta)
    traj = simulate_finite(model, 990, model.context + 1 + ALIGNED_ROWS, 1)
    rows = slice(traj.aligned_from, None)
    for name in OBSERVABLES:
        np.testing.assert_allclose(traj.expectation[name][rows], traj.mean_field[name][rows], rtol=0, atol=1e-12,
                                   err_msg=name)
        assert np.all(np.isnan(traj.mean_field[name][:traj.aligned_from]))


def test_mean_field_rows_are_the_plain_simulation():
    """mean_field rows t >= L+1 are simulate() from the aligned start; mo_se is divided by w (docs/model.md §8)."""
    model = mf.presets.paper(beta_o=1.3)
    traj = simulate_finite(model, 990, 20, 1)
    plain = mf.simulate(model, 20 - model.context - 1, start=traj.mean_field_start)
    np.testing.assert_array_equal(traj.mean_field["att"][model.context + 1:], plain.att)
    np.testing.assert_allclose(traj.mean_field["mo_se"][model.context + 1:] * 0.98, plain.mo_se, rtol=1e-15)


def test_aligned_start_layout(paper):
    att = np.arange(6 * 3, dtype=float).reshape(6, 3) / 20
    state = aligned_start(paper, att)
    np.testing.assert_array_equal(state.att, att[[4, 3, 2, 1]])
    expected = [position_code((5 - d) % 4, 2) for d in range(4)]  # pos(1), pos(0), pos(3), pos(2)
    np.testing.assert_array_equal(state.pe, expected)


def test_first_row_is_the_start_token(paper):
    """Row 0 records x0 = W^o[0]: mo_se = W^o[0]·W^o/N = first row of C^oo (no factor w), att = its value."""
    traj = simulate_finite(paper, 990, 8, 3)
    np.testing.assert_allclose(traj.replica["mo_se"][:, 0], [[1.0, 1 / 3, 1 / 3]] * 3, atol=1e-15)
    np.testing.assert_array_equal(traj.replica["att"][:, 0], traj.replica["mv"][:, 0])


@pytest.mark.parametrize("seed", [0, 1])
def test_any_weights_and_window(random_model, seed):
    """Random ±1 weights with M = 2, P = 2 and L = 5 > 2^P: the expectation network still equals the MF."""
    model = random_model(seed)
    traj = simulate_finite(model, 80, 30, 1)
    rows = slice(traj.aligned_from, None)
    for name in OBSERVABLES:
        np.testing.assert_allclose(traj.expectation[name][rows], traj.mean_field[name][rows], rtol=0, atol=1e-12)


def test_batch_points_match_single_runs(paper):
    betas = np.array([0.8, 1.26405, 2.5])
    batch = simulate_finite_batch(paper, 990, 16, mf.Replicas(2, seed=4), parameters={"beta_o": betas})
    for i, beta in enumerate(betas):
        single = simulate_finite(paper.replace(beta_o=beta), 990, 16, mf.Replicas(2, seed=4))
        for name in OBSERVABLES:
            np.testing.assert_array_equal(batch.replica[name][i], single.replica[name])
            np.testing.assert_array_equal(batch.mean_field[name][i], single.mean_field[name])
