"""Sections, quantisation and distinct counts (docs/model.md §7.1)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from meanfield.analysis import poincare_section
from meanfield.analysis.sections import dequantise, distinct_count, poincare_band, quantise
from meanfield.errors import AnalysisError


@settings(deadline=None, max_examples=50)
@given(arrays(np.float64, st.integers(1, 50), elements=st.floats(-1, 1)), st.floats(0.1, 10))
def test_quantise_is_reference_int_truncation(values, max_y):
    # docs/model.md §7.1: q = int(5001 * (v / max_y + 1) / 2), Python int() truncation, element by element
    expected = [int(5001 * (v / max_y + 1) / 2) for v in values]
    assert quantise(values, max_y).tolist() == expected


def test_dequantise_is_reference_formula():
    q = np.array([0, 2500, 5001])
    assert np.allclose(dequantise(q, 2.0), [(k / 5001 * 2 - 1) * 2.0 for k in q], rtol=0, atol=1e-15)


def test_poincare_band_matches_reference_procedure():
    rng = np.random.default_rng(3)
    plotted, filt = rng.uniform(-0.8, 0.9, 5000), rng.uniform(-0.01, 0.01, 5000)
    # docs/model.md §7.1 written out: keep |filter| <= 0.001, quantise with the global max, map back, unique
    max_y = plotted.max()
    kept = plotted[(filt >= -0.001) & (filt <= 0.001)]
    ref = np.unique([(int(5001 * (v / max_y + 1) / 2) / 5001 * 2 - 1) * max_y for v in kept])
    got = poincare_band(plotted, filt)
    assert kept.size > 100  # the band is visited: the comparison is not vacuous
    assert np.array_equal(got, ref)
    assert np.array_equal(poincare_band(plotted, filt, levels=None), kept)


def test_poincare_band_empty_when_band_not_visited():
    assert poincare_band(np.ones(10), np.full(10, 0.5)).size == 0


def test_distinct_count_periodic_versus_dense():
    cycle = np.tile([0.1, -0.5, 0.7], 100)
    assert distinct_count(cycle) == 3
    # 1000 uniform values in [-1, 1] occupy ~ 5001 (1 - e^{-0.2}) / ... distinct bins: far more than 80
    assert distinct_count(np.random.default_rng(0).uniform(-1, 1, 1000)) > 900


@settings(deadline=None, max_examples=60)
@given(arrays(np.float64, st.integers(1, 400), elements=st.floats(-3, 3)), st.floats(0.1, 2),
       st.sampled_from([1, 2, 11, 5001]))
def test_distinct_count_is_the_size_of_the_unique_codes(values, max_y, levels):
    # the compiled count (a table of the codes 0..levels, the others sorted) against numpy's unique of the
    # reference's codes, values inside and outside [-max_y, max_y]
    assert distinct_count(values, max_y, levels) == np.unique(quantise(values, max_y, levels)).size


def test_distinct_count_with_more_levels_than_its_table():
    from meanfield.analysis.sections import TABLE_LEVELS
    x = np.random.default_rng(1).uniform(-1, 1, 3000)
    levels = 4 * TABLE_LEVELS
    count = distinct_count(x, 1.0, levels)
    assert count == np.unique(quantise(x, 1.0, levels)).size
    assert count > 2990                       # ~1 shared code expected: 3000² / 2 pairs over 4.2e6 codes


def test_poincare_section_on_circle_is_exact():
    # rotation by an irrational angle on the unit circle: crossings of y = 0 upward lie at (1, 0);
    # linear interpolation of a chord gives x = cos of the chord's crossing, error O(step^2) = 1e-4 here
    t = np.arange(20000) * 0.01 * np.sqrt(2)
    pts = poincare_section(np.column_stack([np.cos(t), np.sin(t)]), filter_index=1, level=0.0)
    assert pts.shape[0] == pytest.approx(t[-1] / (2 * np.pi), abs=1)
    assert np.allclose(pts[:, 1], 0.0, atol=1e-15)
    assert np.allclose(pts[:, 0], 1.0, atol=1e-4)
    down = poincare_section(np.column_stack([np.cos(t), np.sin(t)]), 1, direction=-1)
    assert np.allclose(down[:, 0], -1.0, atol=1e-4)
    both = poincare_section(np.column_stack([np.cos(t), np.sin(t)]), 1, direction=0)
    assert both.shape[0] == pts.shape[0] + down.shape[0]


def test_poincare_section_interpolates_linearly_and_strides():
    y = np.array([[0.0, -1.0], [2.0, 1.0], [4.0, 3.0], [6.0, -3.0], [8.0, 5.0]])
    assert np.allclose(poincare_section(y, 1), [[1.0, 0.0], [6.75, 0.0]])
    # stride 2 keeps rows 0, 2, 4: crossing between (0,-1) and (4,3) at s = 1/4
    assert np.allclose(poincare_section(y, 1, stride=2), [[1.0, 0.0]])
    assert np.allclose(poincare_section(y, 1, level=2.0), [[3.0, 2.0], [7.25, 2.0]])


@pytest.mark.parametrize(
    "call",
    [
        lambda: distinct_count([]),
        lambda: distinct_count([0.1, np.nan]),
        lambda: quantise([0.1, np.inf], 1.0),
        lambda: quantise([0.1], 0.0),
        lambda: poincare_band([], []),
        lambda: poincare_band([0.1, np.nan], [0.0, 0.0]),
        lambda: poincare_band([0.1, 0.2], [0.0]),
        lambda: poincare_section(np.zeros((0, 2)), 1),
        lambda: poincare_section(np.zeros((1, 2)), 1),
        lambda: poincare_section(np.array([[0.0, np.nan], [1.0, 1.0]]), 1),
        lambda: poincare_section(np.zeros((5, 2)), 2),
        lambda: poincare_section(np.zeros(5), 0),
        lambda: poincare_section(np.zeros((5, 2)), 1, direction=2),
        lambda: poincare_section(np.zeros((5, 2)), 1, stride=0),
    ],
)
def test_bad_input_raises(call):
    with pytest.raises(AnalysisError):
        call()
