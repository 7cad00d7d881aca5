"""The rest cycle's stability (meanfield/studies/onset.py) against computations that do not share its code: the paper
model's Neimark–Sacker point from the multiple-shooting continuation of meanfield.bifurcations (analytic Jacobians,
its own Newton and test functions); a crossover's closest approach and its stability on either side from the
multiple-shooting Newton of meanfield.periodic_orbit; the numbers an independent finder (its own column-form map,
Newton on Φ^L, pseudo-arclength) gave for one model; the branch point without the positional term from the product
of the analytic one-step Jacobians at A = 0; and the difference monodromy against that product."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.kernels.cpu import attention_jacobian
from meanfield.model.equations import mean_field_step, step_tables
from meanfield.studies.onset import UnstableStart, monodromy, rest_cycle, rest_stability, settled_window


def crossover_model(epsilon=0.02):
    """The random preset M = 12, L = 4, seed 2: a crossover at β_o ≈ 3.301, its first loss of stability an NS point."""
    return mf.presets.random(seed=2, n_features=12, semantic_bits=128, context=4, pe_bits=2, epsilon=epsilon)


def multiple_shooting_margin(model, beta):
    """1 − max|μ| of the rest cycle at β_o = ``beta`` by mf.periodic_orbit, from the window settled from the
    all-(+1) token."""
    window, pe = settled_window(model, beta, 1600)
    orbit = mf.periodic_orbit(model.replace(beta_o=beta), mf.State(att=window, pe=pe), period=model.context)
    return 1 - np.abs(orbit.multipliers).max()


def test_paper_onset_is_the_continuations_neimark_sacker_point():
    found = rest_stability(mf.presets.paper(), (0.5, 3.0))
    located = mf.bifurcations(mf.presets.paper(), "beta_o", (1.0, 1.3))[0]
    assert (found.kind, located.kind) == ("neimark_sacker", "neimark_sacker")
    # both located to ~1e-10 in β_o; the difference monodromy is exact to ~1e-10 (docs/onset.md §2)
    assert abs(found.onset - located.value) < 1e-8
    assert abs(abs(found.critical) - 1) < 1e-8
    assert abs(found.rotation_number - located.rotation_number) < 1e-8
    assert np.isnan(found.crossover)                  # the critical multiplier comes as a complex pair


def test_a_crossover_is_not_a_loss_of_stability():
    model = crossover_model()
    found = rest_stability(model, (0.25, 5.0))
    # the independent finder: NS at 4.6208, closest approach 1 − |μ| = 3.4e-4 at 3.3011 (quoted to those digits)
    assert found.kind == "neimark_sacker" and abs(found.onset - 4.6208) < 1e-4
    assert abs(found.crossover - 3.3011) < 1e-4 and abs(found.closest_approach - 3.4e-4) < 0.1e-4
    # a second method at the crossover: the same margin (a minimum: flat, so the location's ~1e-7 does not
    # matter) and a stable cycle a little before it
    assert multiple_shooting_margin(model, found.crossover) == pytest.approx(found.closest_approach, abs=1e-8)
    assert multiple_shooting_margin(model, found.crossover - 0.01) > found.closest_approach
    # the mirror cycle is born just past the crossover, stable where it was found: a second attractor
    assert found.crossover < found.mirror_birth < found.crossover + 0.01 and found.mirror_modulus < 1


def test_without_the_positional_term_the_crossover_becomes_a_pitchfork():
    # ε = 0: the map is odd in A, A = 0 is the rest state at every β_o, and a real multiplier crosses +1 there
    # while the branch goes on: a branch point (a symmetric pitchfork)
    symmetric = rest_stability(crossover_model(0.0), (0.25, 5.0))
    assert symmetric.kind == "branch_point" and abs(symmetric.critical - 1) < 1e-9
    model = crossover_model(0.0).replace(beta_o=symmetric.onset)
    coef, signs, w_pe, params = step_tables(model)
    att, phase = np.zeros((4, 12)), np.asarray(mf.State.from_token(model, np.ones(130)).pe, dtype=float)
    product = np.eye(att.size)
    for _ in range(model.context):
        product = attention_jacobian(coef, signs, w_pe, params, phase, att) @ product
        att, phase, _ = mean_field_step(model, att, phase)
    assert np.max(np.abs(att)) == 0.0                  # A = 0 is the cycle
    mu = np.linalg.eigvals(product)
    assert np.abs(mu).max() == pytest.approx(1.0, abs=1e-8) and abs(mu[np.argmax(np.abs(mu))].imag) < 1e-8
    # with ε the crossover's gap closes and its location tends to the branch point
    found = [rest_stability(crossover_model(eps), (0.25, 4.5)) for eps in (0.02, 0.01, 0.005)]
    gaps = [f.closest_approach for f in found]
    distances = [abs(f.crossover - symmetric.onset) for f in found]
    assert gaps[0] > 10 * gaps[1] > 100 * gaps[2] and distances[0] > distances[1] > distances[2]
    assert all(f.kind == "none" for f in found)       # never a loss of stability below β_o = 4.5


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
        rest_stability(mf.presets.paper(), (2.0, 3.0))
    with pytest.raises(mf.ConfigError, match="interval"):
        rest_stability(mf.presets.paper(), (1.0, 0.5))


def test_a_sharp_crossover_is_followed_round_not_stepped_across():
    # M = 4, L = 8, seed 3: a crossover with a gap of 1.9e-4 where the branch turns within ~1e-3 of β_o. Steps
    # that are not shortened as the margin falls cross it onto the neighbouring branch; then the cycle found
    # from −A continues down to the rest cycle's own start, which rest_stability refuses (AnalysisError). Followed
    # round, the mirror is a distinct cycle born in a saddle-node just past the crossover.
    model = mf.presets.random(seed=3, n_features=4, semantic_bits=128, context=8, pe_bits=3)
    found = rest_stability(model, (0.25, 8.0))
    assert found.kind == "none" and abs(found.crossover - 7.7316) < 1e-3 and 0 < found.closest_approach < 1e-3
    assert found.crossover < found.mirror_birth < found.crossover + 0.01 and found.mirror_modulus < 1
