"""Periods that are periods (docs/classification.md §2): exact recurrence at the rounding floor, or a residual
that decays geometrically; near-returns of quasi-periodic orbits are not periods."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meanfield.analysis import detect_period
from meanfield.analysis.period import find_cycle
from meanfield.errors import AnalysisError


@pytest.mark.parametrize("r, period", [(2.8, 1), (3.2, 2), (3.5, 4), (3.83, 3)])
def test_logistic_map_periods(maps, r, period):
    # textbook windows of the logistic map: stable fixed point (r < 3), period 2 (3 < r < 1 + sqrt 6),
    # period 4 (r = 3.5), period 3 (the period-3 window starts at 1 + sqrt 8 = 3.828)
    x = maps.orbit(maps.logistic[0], [r], [0.3], 2000, transient=2000)[:, 0]
    assert detect_period(x) == period
    cycle = find_cycle(x)
    assert cycle.residual <= 1e-10 and cycle.settled_at == 0 and cycle.decay == 0


def test_chaotic_series_has_no_period(maps):
    x = maps.orbit(maps.logistic[0], [4.0], [0.3], 2000, transient=100)
    assert detect_period(x) is None and find_cycle(x).period is None


def test_near_returns_of_a_rotation_are_not_periods():
    # golden-mean rotation: x_{t+p} comes back within 2 pi |p rho - m| ~ 1e-4 for p = 4181 (Fibonacci), which an
    # absolute 1e-5-style tolerance over two repetitions would accept; the floor (1e-10 of max|x|) does not
    t = np.arange(20_000)
    x = np.column_stack([np.cos(2 * np.pi * t * (np.sqrt(5) - 1) / 2), np.sin(2 * np.pi * t * (np.sqrt(5) - 1) / 2)])
    assert find_cycle(x).period is None


def test_near_rational_drift_is_rejected_by_the_multiples():
    # rotation 1e-13 off 1/3: the lag-3 residual 2 pi 3e-13 ~ 2e-12 sits below the floor, but it grows
    # like k at lag 3k (a drift, not a cycle): ~1e-8 at k = 5000, far above the floor
    t = np.arange(30_000)
    x = np.cos(2 * np.pi * t * (1 / 3 + 1e-13))
    assert find_cycle(x).period is None
    # 1e-17 off: below double precision over the run, indistinguishable from a cycle
    assert find_cycle(np.cos(2 * np.pi * t * (1 / 3))).period == 3


def test_slowly_converging_fixed_point_is_period_one_not_two(maps):
    # multiplier 2 - r = -0.999: x_t - x* ~ (-0.999)^t, so the lag-2 residual (1 - 0.999^2)|x - x*| is 500 times
    # smaller than the lag-1 one, and an absolute tolerance accepts period 2 first; the geometric decay of the
    # lag-1 residual identifies the fixed point
    x = maps.orbit(maps.logistic[0], [2.999], [0.3], 10_000, transient=10_000)[:, 0]
    cycle = find_cycle(x)
    assert cycle.period == 1 and cycle.decay >= 1 and cycle.repeats == 10_000


def test_period_doubling_side_reports_the_converging_divisor(maps):
    # Henon a = 1.26, b = 0.3: a 14-cycle with a multiplier close to -1 (lambda1 = -3.7e-4): the lag-28 residual
    # reaches the floor first, but the orbit converges to the 14-cycle (period checked over 4e5 steps)
    y = maps.orbit(maps.henon[0], [1.26, 0.3], [0.1, 0.1], 10_000, transient=11_000)
    assert find_cycle(y).period == 14


def test_cycle_reached_inside_the_series_is_counted_from_where_it_settles(maps):
    # logistic just above the period-3 window onset 1 + sqrt 8: laminar/chaotic transient, then the 3-cycle
    x = maps.orbit(maps.logistic[0], [3.8285], [0.3], 3000)[:, 0]
    cycle = find_cycle(x)
    assert cycle.period == 3 and 100 < cycle.settled_at < 1000
    assert cycle.repeats >= (3000 - cycle.settled_at) / 3


def test_long_period_has_few_repeats():
    pattern = np.random.default_rng(1).uniform(size=300)
    x = np.tile(pattern, 4)  # 4 repetitions: a period, but not one seen ten times
    assert find_cycle(x).period == 300 and find_cycle(x).repeats == pytest.approx(4)
    assert detect_period(x) is None and detect_period(x, min_repeats=4) == 300


@settings(deadline=None, max_examples=40)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_random_cycle_period_recovered(p, seed):
    # a random pattern repeated: its period is exactly p (random floats have no smaller period)
    rng = np.random.default_rng(seed)
    pattern = rng.uniform(-1, 1, (p, 2))
    x = np.tile(pattern, (1000 // p + 3, 1))
    assert detect_period(x) == p
    if p > 1:
        assert detect_period(x, max_period=p - 1) is None


def test_period_uses_all_features():
    t = np.arange(400)
    x = np.column_stack([np.cos(np.pi * t / 2) ** 2, np.cos(np.pi * t / 4)])  # periods 2 and 8
    assert detect_period(x[:, 0]) == 2
    assert detect_period(x) == 8


def test_floor_is_relative_to_the_attractor_down_to_rounding():
    # around 1e6 (eps * 1e6 = 2.2e-10): a 2-cycle of 1e-5 is 4.5e4 rounding units, a cycle; one of 1e-7 is below
    # the floor of 1e4 rounding units (2.2e-6), a constant; rtol * M = 1e-4 alone would call both constants
    assert detect_period(1e6 + 1e-3 * np.tile([0.0, 1.0], 200)) == 2
    assert detect_period(1e6 + 1e-5 * np.tile([0.0, 1.0], 200)) == 2
    assert detect_period(1e6 + 1e-7 * np.tile([0.0, 1.0], 200)) == 1
    jitter = np.random.default_rng(0).uniform(-1e-4, 1e-4, 400)  # 1e-10 relative to max |x| ~ 1
    assert detect_period(np.tile([0.0, 1.0], 200) + jitter) is None
    assert detect_period(np.tile([0.0, 1.0], 200) + jitter, period_rtol=1e-3) == 2


def test_constant_series_is_period_one():
    assert find_cycle(np.full(50, 0.25)).period == 1
    assert find_cycle(np.zeros((50, 2))).period == 1


@pytest.mark.parametrize(
    "x, kw",
    [([], {}), ([1.0], {}), ([0.0, np.nan, 0.0], {}), ([0.0, 1.0, 0.0], {"period_rtol": 0.0}),
     ([0.0, 1.0, 0.0], {"max_period": 0}), ([0.0, 1.0, 0.0], {"min_repeats": 0}), (np.zeros((2, 2, 2)), {})],
)
def test_bad_input_raises(x, kw):
    with pytest.raises(AnalysisError):
        detect_period(x, **kw)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_geometric_decay_fit_equals_numpy_least_squares(seed):
    # the compiled envelope fit against numpy written out here: suffix maximum, log10, np.polyfit's line, R²;
    # a noisy geometric decay (R² near 1) and a staircase (R² lower) on both sides of the threshold
    from meanfield.analysis.period import _geometric_decay
    rng = np.random.default_rng(seed)
    t = np.arange(400)
    for e in (10.0 ** (-t / 40) * rng.uniform(0.5, 1.0, t.size),
              10.0 ** (-(t // 100) * 2.0) * rng.uniform(0.9, 1.0, t.size)):
        env = np.log10(np.maximum(np.maximum.accumulate(e[::-1])[::-1], 1e-14))
        slope, intercept = np.polyfit(t, env, 1)
        r2 = 1 - np.sum((env - slope * t - intercept) ** 2) / np.sum((env - env.mean()) ** 2)
        drop = env[0] - env[-1]
        for r2_min in (r2 - 1e-9, r2 + 1e-9):
            expected = drop if r2 >= r2_min else 0.0
            assert _geometric_decay(e, 1e-14, 1.0, 1.0, r2_min) == pytest.approx(expected, rel=1e-12)


def test_ensemble_periods_are_find_cycle_on_each_decision_window(maps):
    # the census's per-start search (fingerprint.cycle_periods) is find_cycle on the classifier's decision
    # window of every start with the same lag limit: periods 1, 2, 4, 3, none (chaos) and a drift
    from meanfield.analysis import Thresholds
    from meanfield.analysis.fingerprint import cycle_periods
    tails = [maps.orbit(maps.logistic[0], [r], [0.3], 3000, transient=500)[:, :1] for r in (2.8, 3.2, 3.5, 3.83, 3.9)]
    t = np.arange(3000)
    tails.append(np.cos(2 * np.pi * 0.3333 * t)[:, None])
    tails = np.stack(tails)
    th = Thresholds()
    for max_period in (2, 64):
        window = th.window(tails.shape[1])
        expected = [find_cycle(tail[-window:], th.period_rtol, th.converged_rtol, th.converge_decades,
                               th.converge_r2, max_period).period or 0 for tail in tails]
        assert cycle_periods(tails, max_period, th).tolist() == expected
    assert cycle_periods(tails, 64, th).tolist() == [1, 2, 4, 3, 0, 0]
