"""The network converges to the mean field like N^(-1/2) where the MF holds (docs/model.md §6.3).

The β/N study behind docs/finite_convergence.png is meanfield.studies.convergence.convergence_study.
"""
import numpy as np
import pytest

import meanfield as mf
from meanfield.finite import simulate_finite

SIZES = np.array([990, 9900, 99000, 990000])  # N_se from ~1e3 to ~1e6, multiples of the paper's 99
WINDOW = 20


def aligned_errors(beta, sampler="binomial", replicas=200):
    model = mf.presets.paper(beta_o=beta)
    drawn = mf.Replicas(replicas, sampler=sampler, seed=1)
    return np.array([simulate_finite(model, n, model.context + 1 + WINDOW, drawn).aligned_error("mo_se", WINDOW).mean()
                     for n in SIZES])


def test_error_falls_like_inverse_square_root():
    """β_o = 0.5 (regular: the trajectory goes to the fixed point): fitted log-log slope in [-0.6, -0.4]."""
    slope = np.polyfit(np.log(SIZES), np.log(aligned_errors(0.5)), 1)[0]
    assert -0.6 <= slope <= -0.4


@pytest.mark.parametrize("sampler", ["binomial", "bits"])
def test_paper_beta_is_close_at_large_n(sampler):
    """β_o = 1.26405: within 1e-2 of the MF over 20 steps at N = 990000 (docs/model.md §9: max 6.5e-3 there),
    far from it at N = 990; the per-bit sampler gives the same picture."""
    errors = aligned_errors(1.26405, sampler, replicas=50)
    assert errors[-1] < 1e-2 and errors[0] > 5e-2


def test_the_study_its_table_and_figure(tmp_path):
    """convergence_study and convergence_table (the β/N study behind docs/finite_convergence.png) give the
    numbers of simulate_finite run directly (same seed: the same streams, so the same numbers), falling with N,
    and the figure is drawn."""
    from meanfield.plots.finite import finite_convergence_figure
    from meanfield.studies.convergence import convergence_study, convergence_table
    model = mf.presets.paper()
    sizes, steps = (990, 99000), model.context + 1 + WINDOW
    runs = convergence_study(model, betas=(0.5,), sizes=sizes, replicas=20, steps=steps, seed=1)
    n_bits, error, stderr = convergence_table(runs, window=WINDOW)[0.5]
    direct = [simulate_finite(model.replace(beta_o=0.5), n, steps, mf.Replicas(20, seed=1))
              .aligned_error("mo_se", WINDOW).mean() for n in sizes]
    np.testing.assert_array_equal(n_bits, sizes)
    np.testing.assert_array_equal(error, direct)
    assert np.all(stderr > 0)
    # 100 times the bits: N^(-1/2) predicts a tenth; 20 replicas leave a factor of 3 either way
    assert 0.03 < error[1] / error[0] < 0.3
    out = tmp_path / "convergence.png"
    finite_convergence_figure(runs, window=WINDOW, path=out)
    assert out.stat().st_size > 1000
