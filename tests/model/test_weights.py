"""Coefficient tables: the reference's seed-1 weights, and the sign-class formula for any M (docs/model.md §1.1)."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.model import weights as W
from meanfield.model.equations import mean_field_step


def test_paper_preset_tables_equal_reference_bitwise(data):
    ref = data("weights_seed1.npz")
    model = mf.presets.paper()
    for alpha in W.FEATURES:
        # c = K / 2^(M-1): an exact power-of-two scaling of the reference's corr_signed, residues included
        np.testing.assert_array_equal(model.coefficients[alpha] * 4, ref[f"corr_signed_{alpha}"])
        np.testing.assert_array_equal(model.pe_weights[alpha], ref[f"W{alpha}"][:, 99:])
    assert model.effective_gamma == float(ref["gamma"])


def test_sign_class_formula_equals_reference_order_for_m3(data):
    ref = data("weights_seed1.npz")
    weights = {a: ref[f"W{a}"] for a in W.FEATURES}
    patterns, general, _ = W.sign_classes(weights, 2)
    full = W.sign_patterns(3)
    rows = [int(np.flatnonzero((full == p).all(axis=1))[0]) for p in patterns]
    others = np.setdiff1d(np.arange(4), rows)                          # classes no column carries: c = 0
    for alpha in W.FEATURES:
        # the reference's K carries rounding residues <= 1.2e-16 (docs/model.md §1.1); /4 -> <= 3e-17
        reference = ref[f"corr_signed_{alpha}"] / 4
        np.testing.assert_allclose(general[alpha], reference[rows], rtol=0, atol=1e-16)
        np.testing.assert_allclose(reference[others], 0.0, rtol=0, atol=1e-16)


def test_sign_patterns_match_reference_matrix(data):
    ref = data("weights_seed1.npz")
    np.testing.assert_array_equal(W.reference_sign_matrix(3), ref["sign_matrix"])


def random_model(n_features, n_se, pe_bits, context, seed, beta_o=1.7):
    model = mf.presets.random(seed, n_features, n_se, pe_bits, context, beta_o=beta_o)
    return model, model.weights


@pytest.mark.parametrize("n_features", [4, 5])
def test_mean_fields_equal_brute_force_column_average(n_features):
    # docs/model.md §1.1: m^α_a(A) = <W^α_{i,a} tanh(β W^o_i·A)>_i, computed column by column without sign classes
    n_se, pe_bits, context = 157, 3, 5
    model, weights = random_model(n_features, n_se, pe_bits, context, seed=n_features)
    rng = np.random.default_rng(0)
    att = rng.uniform(-1, 1, size=(context, n_features))
    pe = rng.choice([-1.0, 1.0], size=(context, pe_bits))
    traj = mf.simulate(model, 1, start=mf.State(att, pe))
    w = 1 - model.epsilon
    brute = {}
    for alpha in W.FEATURES:
        semantic = (weights[alpha][:, :n_se] * np.tanh(model.beta_o * weights["o"][:, :n_se].T @ att[0]).T).mean(1)
        brute[alpha] = w * semantic + (1 - w) * weights[alpha][:, n_se:] @ pe[0] / pe_bits
    np.testing.assert_allclose(traj.mo[0], brute["o"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(traj.mq[0], brute["q"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(traj.mv[0], brute["v"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(traj.mk[0], brute["k"], rtol=0, atol=1e-12)


def test_general_m_kernel_equals_numpy_map():
    model, _ = random_model(4, 61, 2, 4, seed=3, beta_o=2.0)
    rng = np.random.default_rng(1)
    att = rng.uniform(-1, 1, size=(4, 4))
    pe = rng.choice([-1.0, 1.0], size=(4, 2))
    traj = mf.simulate(model, 12, start=mf.State(att, pe))
    for t in range(12):
        att, pe, rec = mean_field_step(model, att, pe)
        np.testing.assert_allclose(traj.att[t], rec["att"], rtol=0, atol=1e-12)


def test_manual_orders_tables():
    # docs/model.md §1.2: K^α[j, a] = S[j, order_α[a]] with order_v = roll(identity, -1)
    coef = W.manual_orders(3)
    signs = W.sign_patterns(3)
    np.testing.assert_array_equal(coef["o"] * 4, signs)
    np.testing.assert_array_equal(coef["v"] * 4, signs[:, [1, 2, 0]])
