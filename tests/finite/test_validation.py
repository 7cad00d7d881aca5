"""Arguments are checked before any kernel runs and weights carry the model's
statistics exactly (docs/model.md §6.1)."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.errors import ConfigError
from meanfield.finite import Replicas, finite_weights, simulate_finite
from meanfield.kernels import finite as finite_kernel
from meanfield.model.weights import FEATURES

PAPER_N_SE = 99


@pytest.fixture
def no_kernel(monkeypatch):
    """Fail loudly if the kernel were reached."""
    def refuse(*args, **kwargs):
        raise AssertionError("kernel called before validation")
    monkeypatch.setattr(finite_kernel, "run_network", refuse)


@pytest.mark.parametrize("n_bits", [0, -99, 990.5, "990", None, True, 1000])
def test_bad_n_bits(paper, no_kernel, n_bits):
    with pytest.raises(ConfigError, match="n_bits"):
        simulate_finite(paper, n_bits, 10, 2)


@pytest.mark.parametrize("key, value", [("replicas", 0), ("replicas", -1), ("replicas", 1.5),
                                        ("steps", 5), ("steps", 0), ("seed", -1), ("seed", 2 ** 64),
                                        ("sampler", "gibbs")])
def test_bad_arguments(paper, no_kernel, key, value):
    args = dict(n_bits=990, steps=10, replicas=2)
    with pytest.raises(ConfigError, match=key):        # the seed and the sampler: the Replicas record checks them
        if key in args:
            args[key] = value
        else:
            args["replicas"] = Replicas(2, **{key: value})
        simulate_finite(paper, **args)


def test_bad_token(paper, no_kernel):
    with pytest.raises(ConfigError, match="x0"):
        simulate_finite(paper, 990, 10, x0=np.ones(99 + 2))


def test_model_without_weights_needs_explicit_weights(paper, no_kernel):
    tables_only = mf.ModelSpec(coefficients=paper.coefficients, pe_weights=paper.pe_weights)
    with pytest.raises(ConfigError, match="no weight matrices"):
        simulate_finite(tables_only, 990, 10)
    network = finite_weights(tables_only, 990, weights=paper.weights)
    assert network.n_bits == 990


def test_weights_with_other_statistics_rejected(paper, no_kernel):
    other = {a: np.array(w) for a, w in paper.weights.items()}
    other["v"][:, :10] *= -1
    with pytest.raises(ConfigError, match="statistics"):
        simulate_finite(paper, 990, 10, weights=other)


def test_replicated_weights_are_the_reference_repeat(paper):
    """Each semantic column repeated N/99 times in place, PE columns copied (the reference's np.repeat)."""
    network = finite_weights(paper, 990)
    for alpha, matrix in network.matrices().items():
        source = np.asarray(paper.weights[alpha])
        expected = np.hstack([np.repeat(source[:, :PAPER_N_SE], 10, axis=1), source[:, PAPER_N_SE:]])
        np.testing.assert_array_equal(matrix, expected)
    patterns, counts = network.classes()
    assert patterns.shape == (3, 4, 3) and list(counts) == [330, 330, 330]


def test_classes_cover_every_column(random_model):
    model = random_model(3, n_features=3, n_se=60, pe_bits=3, context=4)
    network = finite_weights(model, 180)
    patterns, counts = network.classes()
    assert counts.sum() == 180
    full = np.stack([network.matrices()[a][:, :180] for a in FEATURES])
    for pattern, count in zip(patterns, counts):
        assert np.all(full == pattern[:, :, None], axis=(0, 1)).sum() == count


def test_explicit_token_equals_default(paper):
    """x0 = W^o[0] given explicitly gives the same run as the default token."""
    x0 = finite_weights(paper, 990).matrices()["o"][0]
    a = simulate_finite(paper, 990, 12, mf.Replicas(2, seed=5), x0=x0)
    b = simulate_finite(paper, 990, 12, mf.Replicas(2, seed=5))
    np.testing.assert_array_equal(a.replica["att"], b.replica["att"])
