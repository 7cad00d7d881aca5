"""Escape rates from transient chaos (meanfield/analysis/transients.py): the open tent map, whose surviving
measure decays as (2/s)^n (escape rate ln(s/2), Lai & Tél 2011, ch. 2), and censored exponential samples."""
import numpy as np
import pytest

from meanfield.analysis.transients import escape_rate
from meanfield.errors import AnalysisError


def tent_escape_times(slope: float, starts: int, horizon: int, seed: int) -> np.ndarray:
    """First n ≥ 1 with x_n outside [0, 1] under x → slope · min(x, 1 − x), uniform x_0; inf if none by horizon."""
    x = np.random.default_rng(seed).uniform(0, 1, starts)
    times = np.full(starts, np.inf)
    for n in range(1, horizon + 1):
        x = slope * np.minimum(x, 1 - x)
        out = np.isinf(times) & ((x < 0) | (x > 1))
        times[out] = n
    return times


@pytest.mark.parametrize("slope, horizon, after", [(3.0, 60, 0), (3.0, 3, 0), (2.5, 60, 2), (4.0, 60, 1)])
def test_the_open_tent_map_escapes_at_ln_half_its_slope(slope, horizon, after):
    # closed form κ = ln(s/2); the estimate within 3 standard errors, with a sample censored at 3 steps and with
    # the first steps left out; the standard error itself is that of 20 000 starts (≈ κ/√escaped)
    times = tent_escape_times(slope, 20_000, horizon, seed=1)
    found = escape_rate(times, horizon, after=after)
    assert abs(found.rate - np.log(slope / 2)) < 3 * found.stderr
    assert found.stderr < 0.02 and found.lifetime == pytest.approx(1 / found.rate)
    # the survival curve is the fraction still inside after each escape time: (2/s)^(n - after) here
    steps, inside = found.survival
    assert np.allclose(inside[:3], (2 / slope) ** (steps[:3] - after), atol=0.02)


def test_censored_exponential_lifetimes_of_millions_of_steps():
    # a transient of mean lifetime 2e6 steps followed for 3e6 (most starts still inside): the per-step hazard
    # estimate gives the rate within 3 standard errors
    rng = np.random.default_rng(4)
    times = np.ceil(rng.exponential(2e6, 4000))
    times[times > 3e6] = np.inf
    found = escape_rate(times, 3e6)
    assert found.at_risk == 4000 and found.escaped == int(np.isfinite(times).sum())
    assert abs(found.rate - (1 - np.exp(-1 / 2e6))) < 3 * found.stderr


@pytest.mark.parametrize("times, horizon, after, words", [
    ([], 10, 0, "non-empty"),
    ([1, -2], 10, 0, "non-empty"),
    ([1, 20], 10, 0, "after the horizon"),
    ([1, 2], 10, 10, "need 0 <= after < horizon"),
    ([np.inf, np.nan], 10, 0, "no start escaped"),
])
def test_bad_input_is_refused(times, horizon, after, words):
    with pytest.raises(AnalysisError, match=words):
        escape_rate(times, horizon, after=after)
