"""Shared models for the finite-network tests."""
import pytest

import meanfield as mf


@pytest.fixture(scope="session")
def paper():
    return mf.presets.paper(beta_o=1.26405)


@pytest.fixture(scope="session")
def random_model():
    """Factory of models built from random ±1 matrices (any M, L > 2^P allowed), carrying those matrices."""
    return make_random_model


def make_random_model(seed: int, n_features: int = 2, n_se: int = 40, pe_bits: int = 2, context: int = 5,
                      beta_o: float = 1.1) -> mf.ModelSpec:
    return mf.presets.random(seed, n_features, n_se, pe_bits, context, beta_o=beta_o)
