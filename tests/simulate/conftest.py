"""Models for the tests of the simulated systems."""
import pytest

import meanfield as mf


@pytest.fixture(scope="session")
def paper():
    """The paper model in its fixed-point regime (β_o = 1)."""
    return mf.presets.paper(beta_o=1.0)
