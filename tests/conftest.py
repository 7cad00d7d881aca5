import pathlib

import numpy as np
import pytest

DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data():
    """Load a reference fixture from tests/data (copied from the reference runs, see tests/data/README.md)."""
    def load(name):
        return np.load(DATA / name)
    return load
