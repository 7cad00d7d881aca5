"""Shared models for the finite-network tests."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.weights import FEATURES, coefficients_from_weights


@pytest.fixture(scope="session")
def paper():
    return mf.presets.paper(beta_o=1.26405)


@pytest.fixture(scope="session")
def random_model():
    """Factory of models built from random ±1 matrices (any M, L > 2^P allowed), carrying those matrices."""
    return make_random_model


def make_random_model(seed: int, n_features: int = 2, n_se: int = 40, pe_bits: int = 2, context: int = 5,
                      beta_o: float = 1.1) -> mf.ModelSpec:
    rng = np.random.default_rng(seed)
    weights = {a: rng.choice([-1, 1], size=(n_features, n_se + pe_bits)) for a in FEATURES}
    coefficients, pe = coefficients_from_weights(weights, pe_bits)
    return mf.ModelSpec(coefficients=coefficients, pe_weights=pe, weights=weights, context=context,
                        beta_o=beta_o)
