"""The sigma preset's input handling and structure (docs/model.md §10); its numbers are checked against the
reference in tests/simulate/test_sigma_reference.py."""
import warnings

import numpy as np
import pytest

import meanfield as mf
from meanfield.model.sigma import CONFIGURATIONS, MARKED_WRONG, SigmaOrders, sigma_fields
from meanfield.presets import preset


def test_defaults_are_the_references_model():
    model = mf.presets.sigma()
    assert model.sigma.configuration == "4_duplicity_loop_4"
    assert (model.n_features, model.context, model.pe_bits) == (4, 4, 2)
    assert (model.beta_o, model.gamma, model.epsilon) == (100.0, 100.0, 0.95)
    # start: one-hot of order_B^v == 0 with order_B^v = [1, 2, 3, 0]; Π = [pos 0, pos 3, pos 2, pos 1]
    np.testing.assert_array_equal(model.checkpoint.att, [[0, 0, 0, 1]])
    np.testing.assert_array_equal(model.checkpoint.pe, [[-1, -1], [1, 1], [1, -1], [-1, 1]])


@pytest.mark.parametrize("keys, needle", [
    (dict(configuration="5_loops"), "configuration = '5_loops'"),
    (dict(configuration="6_duplicity_loop"), "needs n_patterns = 6"),
    (dict(configuration="4_no_duplicity"), "n_base_patterns >= 4"),
    (dict(orders_B=[[0, 1, 2, 3]] * 4), "1 of 3"),
    (dict(start_index=4), "start_index = 4"),
    (dict(n_patterns=0), "n_patterns = 0"),
    (dict(beta_att=2.0), "beta_att"),
    (dict(orders_B=[[0, 1, 2, 4]] * 4, orders_P=[[0, 1, 2, 1]] * 4, W=np.ones((4, 4, 2))), "orders_B"),
    (dict(orders_B=[[0, 1, 2, 3]] * 4, orders_P=[[0, 1, 2, 3]] * 4, W=np.ones((4, 4, 2))), "orders_P"),
    (dict(orders_B=[[0, 1, 2, 3]] * 4, orders_P=[[0, 1, 2, 1]] * 4, W=np.ones((4, 4, 3))), "pe_bits = 2"),
])
def test_bad_input_names_the_key(keys, needle):
    with pytest.raises(mf.ConfigError, match=needle.replace("(", r"\(")):
        mf.presets.sigma(**keys)


def test_the_configuration_marked_wrong_warns_and_is_reproduced():
    assert MARKED_WRONG == ("4_cycle_0_1_2_1",)
    with pytest.warns(UserWarning, match="WRONG"):
        model = mf.presets.sigma(configuration="4_cycle_0_1_2_1", start_index=1)
    # its PE positions roll with the start index: in = roll([0,1,2,3], -1), out = roll([1,2,1,0], -1)
    np.testing.assert_array_equal(model.sigma.pe_weights[0], [[-1, 1], [1, -1], [1, 1], [-1, -1]])
    np.testing.assert_array_equal(model.sigma.pe_weights[2], [[1, -1], [-1, 1], [-1, -1], [-1, 1]])


def test_explicit_orders_equal_to_a_name_give_the_same_model():
    named = mf.presets.sigma(configuration="4_duplicity_loop_2")
    explicit = mf.presets.sigma(orders_B=named.sigma.orders_b, orders_P=named.sigma.orders_p,
                                W=named.sigma.pe_weights)
    assert explicit.sigma.configuration == "explicit"
    np.testing.assert_array_equal(mf.simulate(named, 50).att, mf.simulate(explicit, 50).att)


def test_round_trip_through_json_and_run_file_keys():
    model = mf.presets.sigma(configuration="3_no_duplicity", n_patterns=3, beta_o=2.0, epsilon=0.3)
    again = mf.ModelSpec.from_dict(model.to_dict())
    assert again == model and again.sigma.configuration == "3_no_duplicity"
    assert preset("sigma", configuration="3_no_duplicity", n_patterns=3, beta_o=2.0, epsilon=0.3) == model
    # a reference-model description carries no sigma key (its provenance JSON is unchanged)
    assert "sigma" not in mf.presets.paper().to_dict()


def test_tables_that_do_not_belong_to_the_orders_are_refused():
    model = mf.presets.sigma()
    tampered = {a: t.copy() for a, t in model.coefficients.items()}
    tampered["v"][0, 0] += 1
    with pytest.raises(mf.ConfigError, match="not the tables"):
        mf.ModelSpec(coefficients=tampered, pe_weights=model.pe_weights, sigma=model.sigma, gamma=1.0)


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_folded_tables_equal_the_sum_over_all_sign_vectors(name):
    # symmetry σ -> -σ: the 2^(M-1) folded rows reproduce the 2^M-term definition on random windows
    sizes = {"3_no_duplicity": (3, 3), "4_no_duplicity": (4, 4), "6_duplicity_loop": (6, 4)}
    n_patterns, n_base = sizes.get(name, (4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mf.presets.sigma(configuration=name, n_patterns=n_patterns, n_base_patterns=n_base + 1,
                                 beta_o=1.7, epsilon=0.3)
    att = np.random.default_rng(3).uniform(-1, 1, (4, n_patterns))
    g, coefficients = model.sigma.tables()
    h = np.tanh(1.7 * att @ g.T)
    direct = sigma_fields(model.sigma, att, model.checkpoint.pe, 1.7, 0.3)["semantic"]
    for row, alpha in enumerate(("q", "k", "v", "o")):
        np.testing.assert_allclose(h @ coefficients[alpha], direct[row], rtol=0, atol=1e-15)


def test_sigma_orders_validate_their_shapes():
    with pytest.raises(mf.ConfigError, match="n_base_patterns"):
        SigmaOrders([[0]] * 4, [[0]] * 4, np.ones((4, 1, 1)), 0)
    with pytest.raises(mf.ConfigError, match="W: shape"):
        SigmaOrders([[0]] * 4, [[0]] * 4, np.ones((3, 1, 1)), 1)
