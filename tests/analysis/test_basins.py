"""Basin-boundary measures on cases with known answers (docs/basins.md §5)."""

import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import linregress

from meanfield.analysis.basins import basin_entropy, tipping_probabilities, uncertainty_exponent, wada_merging
from meanfield.errors import AnalysisError, ConfigError

LOG2 = np.log(2.0)


def smooth_final_state(p, a=1.5, steps=20):
    """Cubic map u' = a·u − u³ (1 < a < 2: attractors ±√(a−1), u = 0 repels; |u| < √a keeps its sign) on
    u = x + 0.5·sin(y), with y' = y/2: two basins, the smooth boundary x = −0.5·sin(y)."""
    u = p[:, 0] + 0.5 * np.sin(p[:, 1])
    for _ in range(steps):
        u = a * u - u**3
    return (u > 0).astype(np.int64)


def gmoy_final_state(p, lam_x=3.0, lam_y=1.5, steps=45):
    """Grebogi, McDonald, Ott & Yorke (1983): x' = λx·x mod 1, y' = λy·y + cos 2πx; attractors y → ±∞ (id 1, 0).
    45 steps: the sign of y is fixed once |y| > 1/(λy − 1), the truncation error is 2·1.5⁻⁴⁵ ≈ 2e-8 in y."""
    x, y = p[:, 0].copy(), p[:, 1].copy()
    for _ in range(steps):
        y = lam_y * y + np.cos(2 * np.pi * x)
        x = (lam_x * x) % 1.0
    return (y > 0).astype(np.int64)


def newton_basins(n, steps=40):
    """Newton's method for z³ − 1 on [−2, 2]², id = nearest cube root of unity after ``steps`` iterations."""
    g = np.linspace(-2.0, 2.0, n)
    z = g[None, :] + 1j * g[:, None]
    with np.errstate(all="ignore"):
        for _ in range(steps):
            z = z - (z**3 - 1) / (3 * z**2)
    roots = np.exp(2j * np.pi * np.arange(3) / 3)
    return np.argmin(np.abs(z[..., None] - roots), axis=-1)


def grid(f, xr, yr, n=512):
    x, y = np.meshgrid(np.linspace(*xr, n), np.linspace(*yr, n))
    return f(np.c_[x.ravel(), y.ravel()]).reshape(n, n)


def entropies_by_hand(basins, box):
    """(S_b, S_bb) of Daza et al. (2016) box by box: the ids of each whole box × box block counted, its Gibbs
    entropy −Σ p ln p, averaged over all blocks and over the blocks holding more than one id."""
    every, boundary = [], []
    for top in range(0, basins.shape[0] - box + 1, box):
        for left in range(0, basins.shape[1] - box + 1, box):
            counts = Counter(basins[top:top + box, left:left + box].ravel().tolist())
            s = -math.fsum(c / box**2 * math.log(c / box**2) for c in counts.values())
            every.append(s)
            if len(counts) > 1:
                boundary.append(s)
    return math.fsum(every) / len(every), math.fsum(boundary) / len(boundary)


#: basin_entropy against entropies_by_hand: the same terms summed in another order (numpy's pairwise sums against
#: math.fsum) over ~1e4 boxes differ by ≲ 1e-15 relative; 1e-12 leaves room and still tells any miscounted box
#: (one box of 1e4 moves the mean by ≳ 1e-5).
BY_HAND_RTOL = 1e-12


def test_smooth_boundary():
    starts = np.random.default_rng(1).uniform([-0.6, -1.5], [0.6, 1.5], size=(100_000, 2))
    alpha, se, f = uncertainty_exponent(smooth_final_state, starts, np.logspace(-3.5, -1.5, 7))
    assert abs(alpha - 1.0) < 3 * se  # statistical: 3 standard errors of the fit
    assert se < 0.05  # the fit resolves α: a wide error would make the line above vacuous
    assert np.all(np.diff(f) > 0)
    basins = grid(smooth_final_state, (-0.6, 0.6), (-1.5, 1.5))
    s_b, s_bb = basin_entropy(basins, box=5)
    assert 0 < s_b < s_bb  # boundary boxes are few (S_b is their share times S_bb)
    assert (s_b, s_bb) == pytest.approx(entropies_by_hand(basins, 5), rel=BY_HAND_RTOL)
    assert wada_merging(basins) == (False, pytest.approx(np.zeros(2)))


def test_smooth_boundary_random_directions():
    starts = np.random.default_rng(2).uniform([-0.6, -1.5], [0.6, 1.5], size=(100_000, 2))
    alpha, se, _ = uncertainty_exponent(smooth_final_state, starts, np.logspace(-3.5, -1.5, 7), scheme="random",
                                        seed=3)
    assert abs(alpha - 1.0) < 3 * se  # statistical: 3 standard errors of the fit


@pytest.mark.parametrize("n", [256, 512])
def test_newton_is_wada_with_fractal_entropy(n):
    basins = newton_basins(n)
    s_b, s_bb = basin_entropy(basins, box=5)
    assert s_bb > LOG2  # Daza et al. 2016: the log 2 criterion holds for Newton's method
    is_wada, radii = wada_merging(basins)
    assert is_wada and radii.shape == (3,)


def test_quadrants_meet_at_a_point_but_are_not_wada():
    # four basins meeting only at the origin: each basin's boundary covers half of the axes
    g = np.linspace(-1, 1, 256)
    x, y = np.meshgrid(g, g)
    is_wada, radii = wada_merging(2 * (x > 0) + (y > 0))
    assert not is_wada
    assert np.all(radii == 127)  # the far half-axis: 127 cells from the nearest own boundary cell


def test_gmoy_fractal_boundary_exponent():
    starts = np.random.default_rng(4).uniform([0.0, -1.5], [1.0, 1.5], size=(50_000, 2))
    # ε = 3^-k: the boundary is self-similar under x → 3x, so equal phases of its log-periodic wiggle
    alpha, se, f = uncertainty_exponent(gmoy_final_state, starts, 3.0 ** -np.arange(6, 15))
    expected = np.log(1.5) / np.log(3.0)  # α = 2 − D = ln λy / ln λx = 0.3691 (GMOY 1983)
    assert abs(alpha - expected) < 3 * se  # statistical: 3 standard errors of the fit
    assert abs(alpha - 1.0) > 10 * se  # and distinguishably not a smooth boundary
    # the standard error pinned from both sides: scipy's least squares of ln f on ln ε, to rounding
    fit = linregress(np.log(3.0 ** -np.arange(6, 15)), np.log(f))
    assert (alpha, se) == pytest.approx((fit.slope, fit.stderr), rel=1e-9)
    basins = grid(gmoy_final_state, (0.0, 1.0), (-2.0, 2.0))
    s_b, s_bb = basin_entropy(basins)
    # two basins: S_bb ≤ ln 2 always (the log 2 criterion is sufficient only, it cannot fire here), so the
    # value itself is checked, against the count by hand (default box: 5)
    assert 0 < s_b < s_bb
    assert (s_b, s_bb) == pytest.approx(entropies_by_hand(basins, 5), rel=BY_HAND_RTOL)


def _double_well_final(x0, mu, h=0.2, steps=200):
    """x' = x + h·(x − μ)(1 − (x − μ)²): attractors μ ± 1, boundary at the repeller c(μ) = μ; increasing on
    |x − μ| < √((1 + h)/(3h)) ≈ 1.41, so basins are the intervals either side of μ."""
    x = x0.copy()
    for _ in range(steps):
        x = x + h * (x - mu) * (1 - (x - mu) ** 2)
    return np.where(x > mu, 1, 0)


def test_tipping_probabilities_closed_form():
    n = 100_000
    starts = -0.8 + 1.6 * (np.arange(n) + 0.5) / n  # uniform midpoint grid on [−0.8, 0.8]
    before, after = _double_well_final(starts, 0.0), _double_well_final(starts, 0.3)
    m, ib, ia = tipping_probabilities(before, after)
    assert ib.tolist() == [0, 1] and ia.tolist() == [0, 1]
    # old upper basin (0, 0.8]: the part below c(0.3) = 0.3 tips down, exactly 0.3/0.8 of it
    assert m[1, 0] == pytest.approx(0.3 / 0.8, abs=2 / n)  # the grid resolves an interval to 1 cell per end
    assert m[0].tolist() == [1.0, 0.0]
    assert np.allclose(m.sum(axis=1), 1.0)


def test_entropy_counts_unsettled_as_an_outcome_and_known_values():
    b = np.zeros((4, 4), dtype=int)
    b[:2, :2] = 1  # four boxes of 2x2, each holding one id: every entropy 0, no boundary box
    assert basin_entropy(b, box=2) == (0.0, 0.0)
    c = np.array([[0, 1], [-1, 2]])  # four outcomes in one box: ln 4
    assert basin_entropy(c, box=2) == pytest.approx((np.log(4), np.log(4)), rel=1e-15)
    d = np.array([[0, 1, 0, 0], [0, 1, 0, 0]])  # boxes of 2: {0,1,0,1} → ln 2, {0,0,0,0} → 0
    assert basin_entropy(d, box=2) == pytest.approx((LOG2 / 2, LOG2), rel=1e-15)


def test_a_straight_two_basin_boundary_by_hand():
    # 10 x 10 cells, id 1 above the diagonal (column > row), boxes of 5: the two diagonal boxes hold the
    # 10 cells above their diagonal out of 25 (p = 2/5), the other two one id each; an 11th row and column
    # (a partial box) are dropped
    e = (np.arange(11)[None, :] > np.arange(11)[:, None]).astype(int)
    h = -(0.4 * np.log(0.4) + 0.6 * np.log(0.6))  # 0.6730116670092565
    # rel 1e-15: a mean of two equal terms and of four, the only rounding that of the logarithms
    assert basin_entropy(e, box=5) == pytest.approx((h / 2, h), rel=1e-15)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: basin_entropy(np.zeros((10, 10))), "basins"),
        (lambda: basin_entropy(np.zeros(10, dtype=int)), "basins"),
        (lambda: basin_entropy(np.zeros((10, 10), dtype=int), box=1), "box"),
        (lambda: basin_entropy(np.zeros((10, 10), dtype=int), box=2.5), "box"),
        (lambda: basin_entropy(np.zeros((4, 10), dtype=int), box=5), "basins"),
        (lambda: wada_merging(-np.ones((5, 5), dtype=int)), "basins"),
        (lambda: wada_merging(np.zeros((5, 5), dtype=int), max_radius=-1), "max_radius"),
        (lambda: tipping_probabilities([0, 1], [0, 1, 1]), "after"),
        (lambda: tipping_probabilities([0.5, 1], [0, 1]), "before"),
        (lambda: uncertainty_exponent(smooth_final_state, np.zeros((3, 2)), [0.1, 0.01]), "epsilons"),
        (lambda: uncertainty_exponent(smooth_final_state, np.zeros((3, 2)), [0.1, -0.01, 1e-3]), "epsilons"),
        (lambda: uncertainty_exponent(smooth_final_state, np.zeros(3), [0.1, 0.01, 1e-3]), "starts"),
        (lambda: uncertainty_exponent(smooth_final_state, np.ones((3, 2)), [0.1, 0.01, 1e-3], scheme="x"), "scheme"),
        (lambda: uncertainty_exponent(lambda p: p[:, 0], np.ones((3, 2)), [0.1, 0.01, 1e-3]), "final_state"),
    ],
)
def test_bad_input_refused(call, name):
    with pytest.raises(ConfigError) as err:
        call()
    msg = str(err.value)
    assert msg.startswith(f"{name}:") and "\n" not in msg


def test_no_uncertain_start_is_an_analysis_error():
    starts = np.full((10, 2), 0.5)  # far from the boundary x = −0.5·sin(y) at every ε below
    with pytest.raises(AnalysisError, match="no uncertain start"):
        uncertainty_exponent(smooth_final_state, starts, [1e-3, 1e-4, 1e-5])
