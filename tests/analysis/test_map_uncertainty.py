"""The uncertainty exponent of a stored basin map (docs/basins.md §2, §7) on maps with known exponents."""
import numpy as np
import pytest
from scipy.stats import linregress

from meanfield.analysis.basins import map_uncertainty_exponent
from meanfield.errors import ConfigError

from .test_basins import gmoy_final_state, smooth_final_state


def _grid(final_state, n, x, y):
    X, Y = np.meshgrid(np.linspace(*x, n), np.linspace(*y, n), indexing="ij")
    return final_state(np.column_stack([X.ravel(), Y.ravel()])).reshape(n, n)


def test_a_smooth_boundary_has_exponent_one():
    # a smooth curve crossing the grid: the cells within k cells of it are proportional to k, alpha = 1
    alpha, stderr, fractions = map_uncertainty_exponent(_grid(smooth_final_state, 512, (-0.6, 0.6), (-1.5, 1.5)))
    assert abs(alpha - 1.0) < 1e-9 and fractions.size == 5


def test_the_gmoy_map_has_its_published_exponent():
    # Grebogi, McDonald, Ott & Yorke (1983): alpha = ln 1.5 / ln 3 = 0.3691; a 1024^2 grid, eps = 1..16 cells;
    # tolerance 3 standard errors of the fit (the grid's resolution bias is part of what the error must cover)
    alpha, stderr, fractions = map_uncertainty_exponent(_grid(gmoy_final_state, 1024, (0.0, 1.0), (-1.5, 1.5)))
    assert abs(alpha - np.log(1.5) / np.log(3.0)) < 3 * stderr and stderr < 0.03
    # the slope and its standard error pinned from both sides: scipy's least squares of ln f on ln ε (the default
    # cells 1, 2, 4, 8, 16), n − 2 degrees of freedom, the same to rounding
    fit = linregress(np.log([1, 2, 4, 8, 16]), np.log(fractions))
    assert (alpha, stderr) == pytest.approx((fit.slope, fit.stderr), rel=1e-9)


@pytest.mark.parametrize("cells", [(1, 2), (0, 1, 2), (1.0, 2.0, 4.0), (1, 2, 40)])
def test_bad_cells_are_refused(cells):
    with pytest.raises(ConfigError, match="cells"):
        map_uncertainty_exponent(np.zeros((64, 64), dtype=np.int64), cells)
