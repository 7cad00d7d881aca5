"""The rest cycle's onset (meanfield/studies/onset.py) against independent computations: the paper model's
Neimark–Sacker point from the multiple-shooting continuation of meanfield.bifurcations (another method: analytic
Jacobians, pseudo-arclength, its own Newton), and the difference monodromy against the product of the compiled
analytic one-step Jacobians."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.kernels.cpu import attention_jacobian
from meanfield.model.equations import mean_field_step, step_tables
from meanfield.studies.onset import UnstableStart, monodromy, rest_cycle, rest_onset, settled_window


def test_paper_onset_is_the_continuations_neimark_sacker_point():
    # resolution 1e-6 on β_o; the continuation locates to 1e-10, so they must agree to the onset's resolution
    onset = rest_onset(mf.presets.paper(), (0.5, 3.0), resolution=1e-7)
    located = mf.bifurcations(mf.presets.paper(), "beta_o", (1.0, 1.3))
    first = located[0]
    assert (onset.kind, first.kind) == ("neimark_sacker", "neimark_sacker")
    assert abs(onset.value - first.value) < 1e-6
    # the critical pair just below the onset: |μ| within 1e-5 of 1 (|dμ/dβ| ~ 1 here), its angle the same
    assert abs(abs(onset.critical) - 1) < 1e-5
    assert abs(onset.rotation_number - first.rotation_number) < 1e-5


def test_difference_monodromy_is_the_product_of_analytic_jacobians():
    model = mf.presets.random(seed=3, n_features=6, semantic_bits=32, context=4, pe_bits=2)
    beta = 0.8
    window, pe = settled_window(model, beta, 400)
    at_beta = model.replace(beta_o=beta)
    coef, signs, w_pe, params = step_tables(at_beta)
    product, att, phase = np.eye(window.size), window, pe
    for _ in range(model.context):
        product = attention_jacobian(coef, signs, w_pe, params, phase, att) @ product
        att, phase, _ = mean_field_step(at_beta, att, phase)
    image, jacobian = monodromy(model, beta, window, pe)
    # central differences with h = 1e-5: truncation ~h^2 |Φ'''| and rounding ~1e-16/h, both < 1e-9 here
    assert np.max(np.abs(jacobian - product)) < 1e-8
    assert np.max(np.abs(image - att)) < 1e-13          # the kernel's Φ^L is the numpy map's, to rounding
    assert np.allclose(phase, pe)                       # the PE window returns after L steps: a period-L cycle


def test_rest_cycle_is_a_fixed_point_of_the_l_step_map():
    model = mf.presets.random(seed=1, n_features=8, semantic_bits=64, context=8, pe_bits=3)
    window, pe = settled_window(model, 1.0, 80)          # 10 periods: not yet converged
    cycle, jacobian = rest_cycle(model, 1.0, window, pe)
    at_beta, att, phase = model.replace(beta_o=1.0), cycle, pe
    for _ in range(model.context):
        att, phase, _ = mean_field_step(at_beta, att, phase)
    assert np.max(np.abs(att - cycle)) < 1e-10
    assert jacobian.shape == (cycle.size, cycle.size)


def test_an_unstable_start_is_refused():
    with pytest.raises(UnstableStart, match="not stable at β_o = 2.0"):
        rest_onset(mf.presets.paper(), (2.0, 3.0))
    with pytest.raises(mf.ConfigError, match="interval"):
        rest_onset(mf.presets.paper(), (1.0, 0.5))
