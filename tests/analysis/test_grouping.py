"""Attractor grouping and matching (meanfield.analysis.fingerprint / grouping) on multistable textbook maps.

Known answers, none tuned here:

* The cubic map x' = a·x − x³ is odd (f(−x) = −f(x)), so every attractor A has a mirror −A with the mirror
  basin; for starts drawn in ± pairs the two mirror attractors get exactly half the resolved starts each.
  Its fixed points ±√(a−1) are stable for 1 < a < 2 (f' = 3 − 2a); at a = 2 they period-double into two
  mirror 2-cycles. Its critical point x_c = √(a/3) maps to f(x_c) = (2a/3)√(a/3); the interval [0, f(x_c)]
  is invariant while f(f(x_c)) ≥ 0, i.e. f(x_c)² ≤ a, i.e. a ≤ 3√3/2 ≈ 2.598: below it the two mirror chaotic
  bands are separate attractors, above it they have merged into one symmetric attractor (the
  symmetry-increasing crisis of odd maps, Chossat & Golubitsky 1988, Physica D 32, 423). Just above the
  crisis the orbit switches between the halves rarely (crisis-induced intermittency) and a finite tail is not a
  sample of the measure (a = 2.62: 25 of 200 starts unsettled with 2·10^4 samples), so the merged case is
  tested at a = 2.9, clear of it and of the period-6 window near a = 2.7.
* The Hénon map at a = 1.4, b = 0.3 has one attractor, the strange attractor (Hénon 1976, Commun. Math. Phys.
  50, 69); starts outside its basin escape to infinity.
"""

import numpy as np
import pytest

from meanfield.analysis import fingerprint, group_attractors, match_attractors
from meanfield.analysis.fingerprint import quantile_summary
from meanfield.analysis.grouping import assign_to_attractors
from meanfield.errors import AnalysisError


def cubic_tails(a, starts, transient=2000, tail=4000):
    x = np.array(starts, dtype=np.float64)
    out = np.empty((x.size, tail))
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(transient + tail):
            x = a * x - x ** 3
            if t >= transient:
                out[:, t - transient] = x
    return out


def mirrored_starts(n, half_width, seed=0):
    x = np.random.default_rng(seed).uniform(0, half_width, n)
    return np.concatenate([x, -x])


def test_mirror_two_cycles_each_get_exactly_half_and_are_phase_free():
    starts = mirrored_starts(300, 2.0)                 # some escape (|x| > √(a+1) ≈ 1.76): unsettled
    prints = fingerprint(cubic_tails(2.1, starts))
    grouping = group_attractors(prints)
    assert grouping.period.tolist() == [2, 2]
    assert grouping.count[0] == grouping.count[1]      # exact by symmetry
    resolved = grouping.count.sum()
    assert grouping.n_unsettled == starts.size - resolved > 0
    assert np.isnan(prints.scale[grouping.assignment < 0]).all()     # the escaped starts, not merged anywhere
    points = [np.sort(prints.cycle_points(i)[:, 0]) for i in grouping.representative]
    np.testing.assert_allclose(points[0], -points[1][::-1], rtol=1e-12)  # mirror images of each other
    # phase-free: one attractor holds starts that end on either of its two points
    members = grouping.assignment == 0
    assert np.unique(np.round(prints.tails[members, -1, 0], 8)).size == 2


@pytest.mark.parametrize("a, n_attractors", [(2.55, 2), pytest.param(2.9, 1, marks=pytest.mark.slow)])
def test_chaotic_bands_split_below_the_symmetric_crisis_and_merge_above(a, n_attractors):
    starts = mirrored_starts(200, 1.5, seed=1)
    prints = fingerprint(cubic_tails(a, starts, tail=20000))
    grouping = group_attractors(prints)
    assert grouping.n_unsettled == 0
    assert grouping.period.tolist() == [0] * n_attractors
    assert np.all(grouping.count == starts.size // n_attractors)


@pytest.mark.slow  # 14 s of orbits: CI, not the fast loop (the band test keeps the module in it)
def test_henon_strange_attractor_is_one_attractor_and_escapes_are_unsettled():
    rng = np.random.default_rng(2)
    x, y = rng.uniform(-1.5, 1.5, 400), rng.uniform(-0.4, 0.4, 400)
    tail = np.empty((400, 20000, 2))
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(22000):
            x, y = 1.0 - 1.4 * x * x + y, 0.3 * x
            if t >= 2000:
                tail[:, t - 2000, 0], tail[:, t - 2000, 1] = x, y
    grouping = group_attractors(fingerprint(tail))
    escaped = ~np.isfinite(tail).all(axis=(1, 2))
    assert 0 < escaped.sum() < 400
    assert grouping.period.tolist() == [0]
    assert np.array_equal(grouping.assignment < 0, escaped)


def test_a_drifting_tail_is_unsettled_not_merged():
    t = np.linspace(0, 1, 4000)
    tails = np.stack([t, t + 0.001, np.sin(2 * np.pi * 0.5 ** 0.5 * 4000 * t)])
    grouping = group_attractors(fingerprint(tails))
    assert grouping.assignment.tolist() == [-1, -1, 0]


def test_fixed_points_are_matched_along_the_parameter_and_continue_into_the_two_cycles():
    starts = mirrored_starts(50, 1.2, seed=3)
    ids_of_positive, known, next_id = [], None, 0
    for a in (1.3, 1.5, 1.7, 1.9, 2.1):
        prints = fingerprint(cubic_tails(a, starts))
        grouping = group_attractors(prints)
        summary = prints.quantiles[grouping.representative]
        if known is None:
            ids = np.arange(summary.shape[0])
        else:
            ids = match_attractors(known[0], known[1], summary, next_id=next_id)
        next_id = max(next_id, ids.max() + 1)
        known = (summary, ids)
        positive = prints.tails[grouping.representative, -1, 0] > 0
        ids_of_positive.append(int(ids[positive][0]))
    assert len(set(ids_of_positive)) == 1 and next_id == 2


def test_an_attractor_too_far_from_every_previous_one_gets_a_new_id():
    levels = (np.arange(8) + 0.5) / 8
    near, far = levels[:, None], levels[:, None] + 5.0
    ids = match_attractors(near[None], np.array([7]), np.stack([far, near + 0.01]), next_id=8)
    assert ids.tolist() == [8, 7]


def test_quantile_summary_distance_is_the_wasserstein_distance():
    from scipy.stats import wasserstein_distance
    rng = np.random.default_rng(4)
    u, v = rng.normal(size=1000), rng.normal(0.3, 1.2, size=1000)
    qu, qv = quantile_summary(u[:, None], 1000), quantile_summary(v[:, None], 1000)
    # equal sample counts and Q = T: the quantile functions are the sorted samples (up to interpolation ~1/T)
    assert abs(np.abs(qu - qv).mean() - wasserstein_distance(u, v)) < 0.01


def test_bad_input_is_refused():
    with pytest.raises(AnalysisError, match="tails"):
        fingerprint(np.zeros((3, 2, 1)))
    with pytest.raises(AnalysisError, match="cycle_rtol"):
        group_attractors(fingerprint(np.zeros((2, 10))), cycle_rtol=2.0)


def test_ids_continue_only_within_a_kind_when_kinds_are_given():
    # a cycle's points and a chaotic band with nearly the same quantiles: by measure alone the band continues the
    # cycle's id; told that one is periodic and the other not, the band is a new attractor
    levels = (np.arange(8) + 0.5) / 8
    cycle, band = levels[:, None], levels[:, None] + 0.01
    assert match_attractors(cycle[None], np.array([3]), band[None], next_id=4).tolist() == [3]
    kinds = (np.array([True]), np.array([False]))
    assert match_attractors(cycle[None], np.array([3]), band[None], next_id=4, kinds=kinds).tolist() == [4]


def test_a_carried_start_is_placed_on_the_first_identical_attractor_or_none():
    # the odd cubic map's mirror 2-cycles (a = 2.1, docs of cubic_tails): a start on the positive cycle is placed on
    # the known positive cycle, one on the negative cycle on nothing when only the positive one is known
    starts = mirrored_starts(4, 1.2, seed=5)
    prints = fingerprint(cubic_tails(2.1, starts))
    grouping = group_attractors(prints)
    first = grouping.representative[0]
    known = assign_to_attractors(prints, prints.period[[first]], prints.scale[[first]], prints.quantiles[[first]],
                                 [prints.cycle_points(first)])
    np.testing.assert_array_equal(known, np.where(grouping.assignment == 0, 0, -1))
    assert (known == -1).any() and (known == 0).any()


def test_hausdorff_distance_equals_its_definition_written_out():
    """The compiled Hausdorff distance against the definition over every pair of points (max norm over features),
    on random sets of unequal sizes, a set against itself in another order (0) and a NaN coordinate (NaN)."""
    from meanfield.analysis.grouping import _hausdorff

    def written_out(a, b):
        pair = np.array([[np.max(np.abs(x - y)) for y in b] for x in a])
        return max(pair.min(axis=1).max(), pair.min(axis=0).max())

    rng = np.random.default_rng(7)
    points = rng.normal(size=(5, 3))
    candidates = rng.normal(size=(4, 7, 3))
    expected = [written_out(points, c) for c in candidates]
    np.testing.assert_array_equal(_hausdorff(points, candidates), expected)
    assert _hausdorff(points, points[::-1][None])[0] == 0.0
    spoiled = candidates.copy()
    spoiled[2, 3, 1] = np.nan
    got = _hausdorff(points, spoiled)
    assert np.isnan(got[2]) and np.array_equal(got[[0, 1, 3]], np.array(expected)[[0, 1, 3]])
