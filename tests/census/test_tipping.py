"""Tipping probabilities along a census continuation (docs/basins.md §4) on a map whose basins move in closed form."""
import numba
import numpy as np

import meanfield as mf
from meanfield.census.continuation import continue_attractors


@numba.njit(cache=True)
def shifted_well(x, p, out):
    """x' = x + 0.2·(x − μ)(1 − (x − μ)²): stable fixed points μ ± 1, their basins' boundary the unstable x = μ."""
    d = x[0] - p[0]
    out[0] = x[0] + 0.2 * d * (1.0 - d * d)


@numba.njit(cache=True)
def shifted_well_jacobian(x, p, out):
    d = x[0] - p[0]
    out[0, 0] = 1.0 + 0.2 * (1.0 - 3.0 * d * d)


def test_the_starts_between_the_old_and_the_new_boundary_tip():
    system = mf.Map(shifted_well, shifted_well_jacobian, np.array([0.0]), {"mu": 0.0},
                    box=(np.array([-0.8]), np.array([0.8])))
    chain = continue_attractors(system, {"mu": [0.0, 0.3]}, 400, 400, 392,
                                tolerances=mf.census.Tolerances(max_period=4))
    ds = chain.to_dataset()
    starts = np.array(system.sample(400))[:, 0]
    up, down = (int(np.argmax(ds["summary"].sel(mu=0.0).values[:, 0, 0] * sign)) for sign in (1, -1))
    up_new = int(np.argmax(np.nan_to_num(ds["summary"].sel(mu=0.3).values[:, 0, 0], nan=-9)))
    assert up_new == up                                   # the continuation matched the moving fixed points
    # closed form: the boundary moves from 0 to 0.3, so the up-starts in (0, 0.3) go down, every down-start stays
    expected = np.count_nonzero((starts > 0) & (starts < 0.3)) / np.count_nonzero(starts > 0)
    tipping = ds["tipping"].sel(mu=0.3)
    assert tipping.sel(attractor=up, destination=down) == expected
    assert tipping.sel(attractor=up, destination=up) == 1 - expected
    assert tipping.sel(attractor=down, destination=down) == 1.0
    assert ds["tipping_unsettled"].sel(mu=0.3, attractor=down) == 0.0
    assert np.all(np.isnan(ds["tipping"].sel(mu=0.0)))    # nothing before the first value
