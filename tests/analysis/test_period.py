"""Period detection."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meanfield.analysis import detect_period
from meanfield.errors import AnalysisError


@pytest.mark.parametrize("r, period", [(2.8, 1), (3.2, 2), (3.5, 4), (3.83, 3)])
def test_logistic_map_periods(maps, r, period):
    # textbook windows of the logistic map: stable fixed point (r < 3), period 2 (3 < r < 1 + sqrt 6),
    # period 4 (r = 3.5), period 3 (the period-3 window starts at 1 + sqrt 8 = 3.828)
    x = maps.orbit(maps.logistic[0], [r], [0.3], 2000, transient=2000)[:, 0]
    assert detect_period(x, tol=1e-9) == period


def test_chaotic_series_has_no_period(maps):
    x = maps.orbit(maps.logistic[0], [4.0], [0.3], 2000, transient=100)
    assert detect_period(x, tol=1e-6) is None


@settings(deadline=None, max_examples=40)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_random_cycle_period_recovered(p, seed):
    # a random pattern repeated: its period is exactly p (random floats have no smaller period)
    rng = np.random.default_rng(seed)
    pattern = rng.uniform(-1, 1, (p, 2))
    x = np.tile(pattern, (300 // p + 3, 1))
    x = x + rng.uniform(-1e-9, 1e-9, x.shape)  # jitter far below the tolerance
    assert detect_period(x, tol=1e-6) == p
    if p > 1:
        assert detect_period(x, tol=1e-6, max_period=p - 1) is None


def test_period_uses_all_features():
    t = np.arange(400)
    x = np.column_stack([np.cos(np.pi * t / 2) ** 2, np.cos(np.pi * t / 4)])  # periods 2 and 8
    assert detect_period(x[:, 0]) == 2
    assert detect_period(x) == 8


def test_tolerance_is_respected():
    x = np.tile([0.0, 1.0], 100) + 1e-4 * np.arange(200)  # slow drift of 2e-4 per period
    assert detect_period(x, tol=1e-3) == 2
    assert detect_period(x, tol=1e-5) is None


def test_period_longer_than_half_the_series_is_not_claimed():
    x = np.tile(np.random.default_rng(1).uniform(size=60), 3)[:100]  # only 1.67 periods
    assert detect_period(x) is None


@pytest.mark.parametrize(
    "x, kw",
    [([], {}), ([1.0], {}), ([0.0, np.nan, 0.0], {}), ([0.0, 1.0, 0.0], {"tol": 0.0}),
     ([0.0, 1.0, 0.0], {"max_period": 0}), (np.zeros((2, 2, 2)), {})],
)
def test_bad_input_raises(x, kw):
    with pytest.raises(AnalysisError):
        detect_period(x, **kw)
