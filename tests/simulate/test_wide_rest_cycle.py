"""The rest cycle of a 1 024-dimensional window (M = 64, L = 16, a model of 128 weight columns, docs/model.md §1.1)
found three ways: multiple-shooting Newton, the onset study's single shooting, and the Lyapunov exponents of a run
on it. A module of its own, so that pytest-xdist (one module per worker) runs it beside tests/simulate/
test_many_features.py.

Slow: Newton on 1 024 dimensions and a run with 8 exponents, about a minute on 2 cores.
"""
import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis import classify

pytestmark = pytest.mark.slow


def test_a_1024_dimensional_rest_cycle_three_ways():
    """M = 64, L = 16 (a 1 024-dimensional window): the rest cycle's multipliers from the multiple-shooting Newton
    of mf.periodic_orbit (analytic Jacobians) equal those of the onset study's single shooting (differences of the
    16-step map through the kernel), and the leading 8 Lyapunov exponents of a run on it are ln|μ_i| / 16 within
    their standard errors; classify says fixed point locked to the forcing."""
    from meanfield.analysis.fixed_point_branch import leading_multipliers
    from meanfield.studies.onset import rest_cycle, settled_window

    wide = mf.presets.random(seed=2, n_features=64, semantic_bits=128, context=16, pe_bits=4)
    beta = 1.30
    window, pe = settled_window(wide, beta, 3200)
    cycle, monodromy = rest_cycle(wide, beta, window, pe)
    mu = leading_multipliers(monodromy, count=8)
    orbit = mf.periodic_orbit(wide.replace(beta_o=beta), mf.State(att=window, pe=pe), period=16)
    # differences with h = 1e-5: ~1e-10 relative (docs/onset.md §2)
    assert np.allclose(np.abs(orbit.multipliers[:6]), np.abs(mu[:6]), atol=1e-8)
    steps, transient = 3000, 1000
    run = mf.simulate(wide.replace(beta_o=beta), steps, transient, start=mf.State(att=cycle, pe=pe), lyapunov=8,
                      compute=mf.Compute(progress=False))
    floquet = np.log(np.abs(mu[:8])) / 16
    # block standard errors, plus the tangent vectors' alignment at the start: O(1/T) in the average
    assert np.all(np.abs(run.lyapunov - floquet) < 3 * run.lyapunov_stderr + 2.0 / (steps - transient))
    label = classify(run)
    assert (label.label, label.period) == ("fixed_point", 16)
