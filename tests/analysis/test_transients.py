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


def censored_geometric_fit(escaped: int, exposure: float) -> tuple[float, float]:
    """(κ̂, its standard error) of a constant per-step escape rate κ from ``escaped`` escapes over ``exposure``
    steps at risk, written from the likelihood alone: every step at risk is survived with probability e^{−κ}
    except the escape steps, log L(κ) = d ln(1 − e^{−κ}) − (E − d) κ; κ̂ its maximum (bounded search) and the
    standard error 1/√(−ℓ''(κ̂)), the curvature by a central second difference (not the delta-method formula of
    meanfield/analysis/transients.py)."""
    from scipy.optimize import minimize_scalar

    def loglik(kappa):
        return escaped * np.log(-np.expm1(-kappa)) - (exposure - escaped) * kappa
    best = minimize_scalar(lambda k: -loglik(k), bounds=(1e-9, 50.0), method="bounded",
                           options={"xatol": 1e-13})
    kappa = best.x
    step = 1e-4 * kappa
    curvature = (loglik(kappa + step) - 2 * loglik(kappa) + loglik(kappa - step)) / step**2
    return kappa, 1 / np.sqrt(-curvature)


@pytest.mark.parametrize("hazard, horizon, after", [(0.05, 40, 0), (0.3, 12, 3), (2e-4, 3000, 500)])
def test_the_standard_error_is_the_likelihoods_curvature(hazard, horizon, after):
    # the estimate and its standard error pinned from both sides against the likelihood written here: the
    # exposure counted by hand (steps at risk from ``after`` to the escape, or to the horizon), the maximum and
    # the curvature found numerically; agreement to 1e-6 (the second difference's truncation and rounding,
    # ≈ 1e-8 of the curvature). A standard error 1 % too large or too small fails.
    rng = np.random.default_rng(7)
    times = rng.geometric(hazard, 3000).astype(float)
    times[times > horizon] = np.inf
    found = escape_rate(times, horizon, after=after)
    risk = times[times > after]
    escaped = int(np.isfinite(risk).sum())
    exposure = sum(min(t, horizon) - after for t in risk)
    assert (found.escaped, found.at_risk) == (escaped, risk.size)
    kappa, stderr = censored_geometric_fit(escaped, exposure)
    assert found.rate == pytest.approx(kappa, rel=1e-6)
    assert found.stderr == pytest.approx(stderr, rel=1e-6)


@pytest.mark.parametrize("hazard, horizon, after", [(0.05, 40, 0), (0.2, 10, 2)])
def test_the_standard_error_is_the_spread_of_the_estimate(hazard, horizon, after):
    # 1 500 censored samples of 400 geometric escape times with a known κ = −ln(1 − h): the reported standard
    # error (its root mean square over the samples) is the standard deviation of κ̂ over them within 8 %. The
    # empirical standard deviation has a relative sampling error 1/√(2 · 1499) ≈ 1.8 % and the maximum-likelihood
    # estimate at ≈ 350 escapes a relative bias ≈ 1/d ≈ 0.3 %: 8 % is 4 sampling errors, and a standard error 12 %
    # too large or too small fails. The mean of κ̂ is κ within 5 of its standard errors (of the mean).
    rng = np.random.default_rng(11)
    samples = rng.geometric(hazard, (1500, 400)).astype(float)
    samples[samples > horizon] = np.inf
    fits = [escape_rate(s, horizon, after=after) for s in samples]
    rates = np.array([f.rate for f in fits])
    stderrs = np.array([f.stderr for f in fits])
    spread = rates.std(ddof=1)
    assert np.sqrt(np.mean(stderrs**2)) == pytest.approx(spread, rel=0.08), (np.sqrt(np.mean(stderrs**2)), spread)
    assert abs(rates.mean() - (-np.log1p(-hazard))) < 5 * spread / np.sqrt(rates.size)


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
