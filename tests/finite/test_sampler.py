"""The exact binomial sampler and the per-bit sampler draw the same network (finite_kernel docstring).

Tolerances: every comparison is a test statistic whose null distribution is known (chi-square, or
approximately normal for means and variances), with thresholds at false-alarm rates of ~1e-6 per
comparison; the seeds are fixed, so the outcome is deterministic.
"""
import math

import numpy as np
import pytest
from numba import njit
from scipy import stats

from meanfield.finite import Replicas, finite_weights, simulate_finite
from meanfield.kernels.finite import UNIT, binomial_minority, bit_threshold, child_key

Z = 5.0  # two-sided normal false-alarm rate 6e-7


@njit(cache=True)
def _draw_minorities(n, mean, count, seed):
    out = np.empty(count, dtype=np.int64)
    key = child_key(np.uint64(seed), 0)
    for i in range(count):
        out[i], _ = binomial_minority(n, mean, child_key(key, i), 0)
    return out


# (n, mean): inversion (n·p < 10), BTRS near the switch, BTRS for large n, and near-saturated spins
CASES = [(33, 0.2), (40, 0.6), (21, 0.0), (330, 0.2), (1000, 0.98), (330000, -0.3), (10 ** 9, 0.5), (500, 1.0)]


@pytest.mark.parametrize("n, mean", CASES)
def test_binomial_matches_the_exact_distribution(n, mean):
    """Chi-square goodness of fit against scipy's Binomial pmf on bins with >= 20 expected counts."""
    draws = 100_000
    p = 0.5 * (1 - abs(mean))
    k = _draw_minorities(n, mean, draws, 17)
    assert k.min() >= 0 and k.max() <= n
    if p == 0:
        assert np.all(k == 0)
        return
    lo, hi = stats.binom.ppf([1e-7, 1 - 1e-7], n, p).astype(int)
    edges = np.unique(np.linspace(lo, hi + 1, min(hi - lo + 2, 80)).astype(np.int64))
    expected = draws * np.diff(stats.binom.cdf(edges - 1, n, p))
    expected[0] += draws * stats.binom.cdf(edges[0] - 1, n, p)
    expected[-1] += draws * stats.binom.sf(edges[-1] - 1, n, p)
    observed = np.histogram(np.clip(k, edges[0], edges[-1] - 1), bins=edges)[0]
    keep = expected >= 20
    observed = np.append(observed[keep], observed[~keep].sum())
    expected = np.append(expected[keep], expected[~keep].sum())
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    chi2 = ((observed - expected) ** 2 / expected).sum()
    assert stats.chi2.sf(chi2, len(expected) - 1) > 1e-6


@pytest.mark.parametrize("sampler", ["binomial", "bits"])
def test_first_sampled_token_has_the_exact_moments(paper, sampler):
    """Token 1 is drawn from the deterministic att of x0, so its overlaps have a known mean and variance:
    class sums have mean n_c t_c and variance n_c (1 - t_c²) (docs/model.md §6.1)."""
    replicas, n_bits = 4000, 990
    traj = simulate_finite(paper, n_bits, 6, Replicas(replicas, sampler=sampler, seed=9))
    patterns, counts = finite_weights(paper, n_bits).classes()
    means = np.tanh(paper.beta_o * patterns[:, 0] @ traj.replica["att"][0, 0])
    mean = patterns[:, 0].T @ (counts * means) / n_bits
    var = (patterns[:, 0].T ** 2) @ (counts * (1 - means ** 2)) / n_bits ** 2
    sample = traj.replica["mo_se"][:, 1]
    assert np.all(np.abs(sample.mean(axis=0) - mean) < Z * np.sqrt(var / replicas))
    assert np.all(np.abs(sample.var(axis=0, ddof=1) / var - 1) < Z * math.sqrt(2 / (replicas - 1)))


def _variance_spread(x):
    """Standard error of the sample variance from the data's own fourth moment (no normality assumed)."""
    n = x.shape[0]
    centred = x - x.mean(axis=0)
    m2, m4 = (centred ** 2).mean(axis=0), (centred ** 4).mean(axis=0)
    return np.sqrt(np.maximum(m4 - m2 ** 2 * (n - 3) / (n - 1), 0) / n)


def test_binomial_and_bits_agree_along_the_trajectory(paper):
    """Two independent samples (different seeds), one per sampler: means and variances of every
    observable and feature at later tokens agree within 5 combined standard errors."""
    replicas = 3000
    bits = simulate_finite(paper, 990, 10, Replicas(replicas, sampler="bits", seed=21))
    binomial = simulate_finite(paper, 990, 10, Replicas(replicas, sampler="binomial", seed=22))
    for name in ("att", "mo_se", "mq", "mk"):
        for row in (2, 5, 9):
            x, y = bits.replica[name][:, row], binomial.replica[name][:, row]
            gap = np.abs(x.mean(axis=0) - y.mean(axis=0))
            assert np.all(gap <= Z * np.sqrt((x.var(axis=0) + y.var(axis=0)) / replicas)), (name, row)
            gap = np.abs(x.var(axis=0, ddof=1) - y.var(axis=0, ddof=1))
            assert np.all(gap <= Z * np.hypot(_variance_spread(x), _variance_spread(y))), (name, row)


@njit(cache=True)
def _threshold_agrees(p, around):
    """unit-style comparison (k + 1/2)·2^-52 < p against k < bit_threshold(p) for k near the threshold."""
    threshold = bit_threshold(p)
    for k in range(max(0, int(threshold) - around), min(2 ** 52, int(threshold) + around)):
        if ((k + 0.5) * UNIT < p) != (np.uint64(k) < threshold):
            return False
    return True


@pytest.mark.parametrize("p", [0.0, 1.0, 0.5, 0.3, 1e-300, 2.0 ** -53, 3 * 2.0 ** -53, 1 - 2.0 ** -53, 0.7])
def test_integer_bit_threshold_is_the_float_comparison(p):
    assert _threshold_agrees(p, 1000)
