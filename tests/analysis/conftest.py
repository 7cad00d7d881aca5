"""Textbook maps for the analysis tests (defined in :mod:`textbook`, with the benchmark cases)."""

from types import SimpleNamespace

import pytest

from .textbook import MAPS, orbit

_MAPS = SimpleNamespace(**MAPS, orbit=orbit)


@pytest.fixture(scope="session")
def maps():
    """Namespace of (step, jacobian) pairs and the ``orbit`` helper."""
    return _MAPS
