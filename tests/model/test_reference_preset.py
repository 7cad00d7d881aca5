"""The ``reference`` preset (docs/model.md §1.2) and the reference's starts (§2.2): the model it assembles for
every correlation mode, its map against column averages, the correlation-index and checkpoint-file starts."""
import dataclasses
import itertools

import numpy as np
import pytest

import meanfield as mf
from meanfield.model import weights as W
from meanfield.model.reference_weights import CORRELATIONS
from meanfield.model.state import position_code
from meanfield.presets import reference

from .helpers import transcription

CASES = [  # (seed, M, N_se, P, mode number, segments, pe_mode, reorder)
    (1, 3, 99, 2, 3, 3, 0, False), (2, 3, 99, 2, 3, 4, 0, False), (3, 2, 100, 5, 3, 3, 1, False),
    (4, 1, 101, 3, 3, 7, 0, True), (5, 3, 100, 1, 1, 3, 0, False), (6, 2, 99, 2, 1, 3, 1, True),
    (7, 3, 99, 3, 0, 3, 0, False), (8, 2, 101, 2, 0, 3, 1, False), (9, 3, 99, 5, 2, 3, 0, False),
    (10, 1, 100, 2, 2, 3, 0, True)]


def build(seed, M, N, P, mode, segments, pe_mode, reorder, **parameters):
    return reference(seed=seed, n_features=M, semantic_bits=N, pe_bits=P, correlations=CORRELATIONS[mode],
                     segments=segments, pe_mode=pe_mode, reorder_weights=reorder, **parameters)


@pytest.mark.parametrize("case", CASES)
def test_preset_carries_the_transcribed_weights_and_tables(case):
    seed, M, N, P, mode, segments, pe_mode, reorder = case
    model = build(*case)
    mats, pair, quad = transcription(seed, M, N, P, mode, segments, pe_mode=pe_mode, reorder=reorder)
    tables = W.coefficients_from_correlations(pair, quad)
    assert model.context == 2 ** P and model.n_features == M and model.pe_bits == P
    for a in W.FEATURES:
        np.testing.assert_array_equal(model.weights[a], mats[a])
        np.testing.assert_array_equal(model.pe_weights[a], mats[a][:, N:])
        np.testing.assert_array_equal(model.coefficients[a], tables[a])


def one_step(model, seed=0):
    """A random full-window state and the first step's recorded mean fields from the kernel."""
    rng = np.random.default_rng(seed)
    att = rng.uniform(-1, 1, size=(model.context, model.n_features))
    pe = rng.choice([-1.0, 1.0], size=(model.context, model.pe_bits))
    traj = mf.simulate(model, 1, start=mf.State(att, pe))
    return att, pe, {a: getattr(traj, f"m{a}")[0] for a in W.FEATURES}


@pytest.mark.parametrize("case", [c for c in CASES if c[4] in (1, 3)])
def test_map_of_weight_modes_equals_column_average(case):
    # m^α_a = w <W^α_{a,i} tanh(β W^o_i·A[0])>_i + ε W^α_PE[a]·Π[0]/P over the semantic columns, one by one
    model = build(*case, beta_o=1.7, epsilon=0.1)
    n_se = case[2]
    att, pe, fields = one_step(model)
    w = 1 - model.epsilon
    for a in W.FEATURES:
        mats = {b: np.asarray(m, dtype=float) for b, m in model.weights.items()}
        column = [mats[a][:, i] * np.tanh(model.beta_o * mats["o"][:, i] @ att[0]) for i in range(n_se)]
        brute = w * np.mean(column, axis=0) + (1 - w) * mats[a][:, n_se:] @ pe[0] / model.pe_bits
        # N_se terms summed in another order: rounding <= N_se ulp(1) ~ 2e-14
        np.testing.assert_allclose(fields[a], brute, rtol=0, atol=1e-13, err_msg=a)


@pytest.mark.parametrize("M", [1, 2, 3])
def test_map_of_manual_orders_equals_average_over_all_patterns(M):
    # docs/model.md §1.2: W^α_{i,a} = W^o_{i, order_α[a]} with the columns W^o_i uniform over {±1}^M; PE weights 0
    model = reference(n_features=M, semantic_bits=0, pe_bits=3, correlations="manual_orders", beta_o=2.3)
    assert model.weights is None
    att, _, fields = one_step(model, seed=M)
    orders = {"o": list(range(M)), "q": list(range(M)), "k": list(range(M)), "v": [(a + 1) % M for a in range(M)]}
    w = 1 - model.epsilon
    for a in W.FEATURES:
        sigmas = np.array(list(itertools.product([-1.0, 1.0], repeat=M)))
        brute = w * np.mean([s[orders[a]] * np.tanh(model.beta_o * s @ att[0]) for s in sigmas], axis=0)
        np.testing.assert_allclose(fields[a], brute, rtol=0, atol=1e-15, err_msg=a)


def test_paper_is_the_reference_preset_at_the_paper_values(data):
    paper = mf.presets.paper()
    same = reference(seed=1, n_features=3, pe_bits=2, context=4, semantic_bits=99, segments=3, beta_o=1.266)
    assert dataclasses.replace(same, checkpoint=paper.checkpoint, name="paper") == paper
    chk = data("checkpoint_beta3.0.npz")
    np.testing.assert_array_equal(paper.checkpoint.att, chk["att_window"])
    assert mf.presets.paper(beta_att=2.0).beta_att == 2.0
    with pytest.raises(mf.ConfigError, match="seed"):
        mf.presets.paper(seed=2)


def test_correlation_start_is_the_one_hot_value_order():
    model = reference(n_features=3, semantic_bits=0, pe_bits=2, correlations="manual_orders")
    for index, one_hot in ((0, [0, 0, 1]), (1, [1, 0, 0]), (2, [0, 1, 0])):     # order_v = [1, 2, 0]
        state = mf.State.from_correlation(model, index)
        np.testing.assert_array_equal(state.att, [one_hot])
        np.testing.assert_array_equal(state.pe, [position_code(n, 2) for n in (0, 3, 2, 1)])
    with pytest.raises(mf.ConfigError, match="start.index"):
        mf.State.from_correlation(model, 3)


def test_token_and_correlation_starts_refuse_more_positions_than_codes():
    # the reference encodes positions 0..L-1 with P bits: L > 2^P fails there; a state start is fine
    model = reference(pe_bits=2, context=6)
    with pytest.raises(mf.ConfigError, match="context"):
        mf.State.from_pattern(model)
    with pytest.raises(mf.ConfigError, match="context"):
        mf.State.from_correlation(model, 0)
    pe = [position_code(n % 4, 2) for n in range(6)]
    assert mf.simulate(model, 3, start=mf.State(np.zeros((1, 3)), pe)).att.shape == (3, 3)


def test_checkpoint_file_start(tmp_path, data):
    chk = data("checkpoint_beta3.0.npz")
    np.savez(tmp_path / "chk.npz", **{k: chk[k] for k in chk.files})
    state = mf.State.from_checkpoint_file(tmp_path / "chk.npz")
    model = mf.presets.paper()
    np.testing.assert_array_equal(state.att, model.checkpoint.att)
    np.testing.assert_array_equal(state.pe, model.checkpoint.pe)
    np.savez(tmp_path / "partial.npz", att_window=np.zeros((4, 3)))
    for path in (tmp_path / "partial.npz", tmp_path / "missing.npz"):
        with pytest.raises(mf.ConfigError, match="start.file"):
            mf.State.from_checkpoint_file(path)


def test_random_preset_takes_up_to_256_features():
    model = mf.presets.random(seed=3, n_features=256, semantic_bits=40)
    assert model.coefficients["o"].shape == model.tanh_signs.shape == (40, 256)     # one class per column
    for key, value in (("n_features", 257), ("seed", -1), ("semantic_bits", 0), ("pe_bits", 11), ("context", 1025)):
        with pytest.raises(mf.ConfigError, match=key):
            mf.presets.random(**{key: value})
