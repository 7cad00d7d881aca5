"""The chaotic transient of a census (meanfield/census/transients.py) on a map whose escape rate is known in
closed form: the open tent map x → s·min(x, 1 − x) on [0, 1] (s > 2) loses the fraction 1 − 2/s of its uniform
measure per step, κ = ln(s/2) (Lai & Tél 2011, ch. 2), into x > 1, where x → 1.5 + (x − 1.5)/2 brings every
start to the fixed point 1.5: a chaotic transient on the tent map's Cantor set, then a fixed point."""
import numba as nb
import numpy as np
import pytest

import meanfield as mf
from meanfield.census.transients import transient_starts
from meanfield.errors import ConfigError


@nb.njit(cache=True)
def open_tent(x, p, out):
    out[0] = p[0] * min(x[0], 1.0 - x[0]) if x[0] <= 1.0 else 1.5 + 0.5 * (x[0] - 1.5)


@nb.njit(cache=True)
def open_tent_jacobian(x, p, out):
    out[0, 0] = 0.5 if x[0] > 1.0 else (p[0] if x[0] < 0.5 else -p[0])


def tent(slope: float) -> mf.Map:
    return mf.Map(open_tent, open_tent_jacobian, np.array([0.5]), {"s": slope},
                  box=(np.array([0.0]), np.array([1.0])))


STEPS, TRANSIENT, STARTS = 800, 200, 512
#: Cycles up to period 64 told from aperiodic tails (the tail, 600 steps, holds two of them).
UP_TO_64 = mf.census.Tolerances(max_period=64)


@pytest.mark.parametrize("slope", [2.001, 2.002])       # mean lifetimes 2 000 and 1 000 steps
def test_the_escape_rate_of_the_open_tent_map(slope):
    census = mf.find_attractors(tent(slope), STARTS, STEPS, TRANSIENT, transients=40 * STEPS, tolerances=UP_TO_64)
    found = census.transient.escape
    kappa = np.log(slope / 2)
    assert abs(found.rate - kappa) < 3 * found.stderr, (found.rate, found.stderr, kappa)
    assert found.stderr < 0.1 * kappa and found.escaped == found.at_risk      # all left within the horizon
    # the rate and its standard error pinned from both sides: the arrival counts read off the survival curve
    # (a census run as the time unit), the maximum-likelihood per-run hazard h = d / E, κ = −ln(1 − h) / steps and
    # the standard error 1/√(observed information) / steps, written here, to 1e-9
    runs = np.concatenate([[0.0], found.survival[0] / STEPS])
    assert np.allclose(runs, np.round(runs)) and census.transient.horizon == 40 * STEPS
    left = -np.diff(np.concatenate([[1.0], found.survival[1]])) * found.at_risk
    assert np.allclose(left, np.round(left)) and round(left.sum()) == found.escaped
    exposure = np.round(left) @ runs[1:] + (found.at_risk - found.escaped) * 40
    hazard = found.escaped / exposure
    information = found.escaped / hazard**2 + (exposure - found.escaped) / (1 - hazard) ** 2   # −ℓ''(h) at h = d/E
    assert found.rate == pytest.approx(-np.log1p(-hazard) / STEPS, rel=1e-9)
    assert found.stderr == pytest.approx(1 / np.sqrt(information) / (1 - hazard) / STEPS, rel=1e-9)
    # still inside at the end of a census run: (2/s)^steps of the uniform starts, binomial error
    expected = (2 / slope) ** STEPS
    assert abs(census.transient.share - expected) < 4 * np.sqrt(expected * (1 - expected) / STARTS)
    assert "chaotic transient" in repr(census)


def test_the_option_changes_no_attractor():
    plain = mf.find_attractors(tent(2.002), STARTS, STEPS, TRANSIENT, tolerances=UP_TO_64)
    followed = mf.find_attractors(tent(2.002), STARTS, STEPS, TRANSIENT, transients=4 * STEPS, tolerances=UP_TO_64)
    assert plain.transient is None
    np.testing.assert_array_equal(plain.assignment, followed.assignment)
    assert [(a.label, a.period, a.fraction) for a in plain.attractors] == \
        [(a.label, a.period, a.fraction) for a in followed.attractors]
    # the transient's starts: aperiodic tails that the census gives to the fixed point
    starts = transient_starts(followed)
    assert np.all(followed.fingerprints.period[starts] == 0)
    assert {followed.attractors[i].label for i in followed.assignment[starts]} == {"fixed_point"}


def test_no_transient_and_a_horizon_too_short():
    closed = mf.find_attractors(tent(1.9), 64, STEPS, TRANSIENT, transients=STEPS, tolerances=UP_TO_64)
    assert closed.transient is None                           # slope < 2: nothing leaves [0, 1]: an attractor
    assert [a.label for a in closed.attractors] == ["chaotic"]
    with pytest.raises(ConfigError, match="transients = 100 is not allowed"):
        mf.find_attractors(tent(2.002), 64, STEPS, TRANSIENT, transients=100, tolerances=UP_TO_64)
