"""Models of many features: the tables of the sign classes a model's columns carry (docs/model.md §1.1), built
without the 2^(M-1) patterns, equal to the full tables and giving the same map bit for bit."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.model import weights as W


def random_weights(n_features, n_se, pe_bits, seed, classes=None):
    """±1 matrices; with ``classes``, the W^o columns are drawn from that many patterns (so classes repeat,
    some with both signs)."""
    rng = np.random.default_rng(seed)
    weights = {a: rng.choice([-1, 1], size=(n_features, n_se + pe_bits)) for a in W.FEATURES}
    if classes is not None:
        pool = rng.choice([-1, 1], size=(n_features, classes))
        pick = rng.integers(0, classes, n_se)
        weights["o"][:, :n_se] = pool[:, pick] * rng.choice([-1, 1], size=n_se)
    return weights


def full_table_by_columns(weights, pe_bits):
    """c^α over all 2^(M-1) patterns, column by column: each column adds ±W^α_i to the row of its pattern."""
    n_features = weights["o"].shape[0]
    n_se = weights["o"].shape[1] - pe_bits
    patterns = W.sign_patterns(n_features)
    tables = {a: np.zeros((len(patterns), n_features)) for a in W.FEATURES}
    for i in range(n_se):
        sign = 1 if weights["o"][0, i] > 0 else -1
        row = int(np.flatnonzero((patterns == sign * weights["o"][:, i]).all(axis=1))[0])
        for a in W.FEATURES:
            tables[a][row] += sign * weights[a][:, i]
    return patterns, {a: t / n_se for a, t in tables.items()}


@pytest.mark.parametrize(("n_features", "n_se", "classes"), [(1, 9, None), (3, 99, None), (6, 50, 7), (10, 300, None)])
def test_sign_classes_are_the_nonzero_rows_of_the_full_table(n_features, n_se, classes):
    weights = random_weights(n_features, n_se, 2, seed=n_features, classes=classes)
    patterns, coefficients, pe = W.sign_classes(weights, 2)
    full_patterns, full = full_table_by_columns(weights, 2)
    rows = [int(np.flatnonzero((full_patterns == p).all(axis=1))[0]) for p in patterns]
    assert rows == sorted(set(rows))                                  # the full table's row order, each once
    carried = {tuple(np.sign(weights["o"][0, i]) * weights["o"][:, i]) for i in range(n_se)}
    assert {tuple(p) for p in patterns} == carried
    others = np.setdiff1d(np.arange(len(full_patterns)), rows)
    for a in W.FEATURES:
        np.testing.assert_array_equal(coefficients[a], full[a][rows])  # integer sums / N_se: exact
        assert not np.any(full[a][others])
        np.testing.assert_array_equal(pe[a], weights[a][:, n_se:])


@pytest.mark.parametrize("n_features", range(1, 13))
def test_map_of_the_class_tables_equals_the_full_tables_bit_for_bit(n_features):
    """At every M <= 12, the same model with its K rows and with all 2^(M-1) (the zero rows add nothing): equal
    records and exponents, bit for bit (stronger than the 1e-14 asked: the dropped rows' terms are exact zeros).
    A 32-token context puts every M on the one run-time-size build (docs/model.md §3.3), so nothing compiles per M."""
    weights = random_weights(n_features, 60, 5, seed=11 + n_features, classes=6)
    sparse = mf.presets.from_weights(weights, 5, context=32, beta_o=2.2)
    patterns, full = full_table_by_columns(weights, 5)
    dense = mf.ModelSpec(coefficients=full, pe_weights=sparse.pe_weights, context=32, beta_o=2.2)
    assert sparse.tanh_signs.shape[0] <= min(6, 2 ** (n_features - 1)) and dense.tanh_signs.shape[0] == len(patterns)
    rng = np.random.default_rng(2)
    start = mf.State(att=rng.uniform(-1, 1, (32, n_features)), pe=rng.choice([-1.0, 1.0], (32, 5)))
    a = mf.simulate(sparse, 300, 100, start=start, lyapunov=3, compute=mf.Compute(progress=False))
    b = mf.simulate(dense, 300, 100, start=start, lyapunov=3, compute=mf.Compute(progress=False))
    np.testing.assert_array_equal(a.att, b.att)
    np.testing.assert_array_equal(a.lyapunov, b.lyapunov)
    assert np.ptp(a.att[-50:]) > 0                          # not a trivial run: the tokens move


def test_from_weights_refuses_what_it_cannot_build():
    good = random_weights(4, 20, 2, seed=0)
    cases = [({**good, "q": good["q"] * 0}, "weights.q"),
             ({**good, "k": good["k"][:, :-1]}, "same shape"),
             ({a: np.ones((257, 30)) for a in W.FEATURES}, "M = 257"),
             ({a: np.full((4, 2), 1) for a in W.FEATURES}, "more than pe_bits")]
    for weights, message in cases:
        with pytest.raises(mf.ConfigError, match=message):
            mf.presets.from_weights(weights, 2)
    for key, value in (("context", 1025), ("pe_bits", 11)):
        with pytest.raises(mf.ConfigError, match=key):
            mf.presets.from_weights(good, **{"pe_bits": 2, key: value})
    model = mf.presets.from_weights(good, 2)
    for bad in (model.patterns[:, ::-1], np.vstack([model.patterns, model.patterns[:1]])):
        with pytest.raises(mf.ConfigError, match="patterns"):
            mf.ModelSpec(coefficients={a: np.zeros((len(bad), 4)) for a in W.FEATURES},
                         pe_weights=model.pe_weights, patterns=bad)


def test_model_of_many_features_round_trips_and_keeps_its_weights():
    model = mf.presets.random(seed=5, n_features=64, semantic_bits=128, pe_bits=2, context=4)
    assert model.tanh_signs.shape == (128, 64)
    np.testing.assert_array_equal(model.weights["o"].shape, (64, 130))
    again = mf.ModelSpec.from_dict(model.to_dict())
    assert again == model
    np.testing.assert_array_equal(again.patterns, model.patterns)


def test_mean_fields_of_64_features_equal_the_column_average():
    """docs/model.md §1.1 at M = 64 (K = 128 classes of 2^63): m^α_a(A) = w <W^α_{i,a} tanh(β W^o_i·A)>_i +
    (1-w) W^α_PE[a]·p/P, column by column in numpy. 1e-12: sums of 128 terms of size <= 1 in another order."""
    model = mf.presets.random(seed=5, n_features=64, semantic_bits=128, pe_bits=2, context=4, beta_o=0.3)
    weights, n_se = model.weights, 128
    rng = np.random.default_rng(0)
    att = rng.uniform(-1, 1, size=(4, 64))
    pe = rng.choice([-1.0, 1.0], size=(4, 2))
    traj = mf.simulate(model, 1, start=mf.State(att, pe), compute=mf.Compute(progress=False))
    w = 1 - model.epsilon
    for alpha, got in (("o", traj.mo), ("v", traj.mv), ("q", traj.mq), ("k", traj.mk)):
        semantic = (weights[alpha][:, :n_se] * np.tanh(model.beta_o * weights["o"][:, :n_se].T @ att[0]).T).mean(1)
        expected = w * semantic + (1 - w) * weights[alpha][:, n_se:] @ pe[0] / 2
        np.testing.assert_allclose(got[0], expected, rtol=0, atol=1e-12)
