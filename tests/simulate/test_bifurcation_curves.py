"""Two-parameter curves of the model and of a user's map (meanfield/bifurcation_curves.py), checked against
computations that share nothing with the code under test: the critical multipliers of every point of the
paper model's Neimark–Sacker curve from central-difference Jacobians of the plain-numpy L-step map, and the
Hénon map's flip curve in closed form."""

import numpy as np
import pytest

import meanfield as mf
import meanfield.attention_orbits
import meanfield.bifurcation_curves as curves_module
from meanfield.analysis.bifurcations import Bifurcation
from meanfield.errors import ConfigError
from tests.analysis.textbook import henon_jacobian, henon_step
from tests.simulate.test_orbits import L, central_jacobian, n_step_map

HENON = mf.Map(henon_step, henon_jacobian, [0.5, 0.1], {"a": 0.2, "b": 0.3})


@pytest.fixture(scope="module")
def ns_curve():
    model = mf.presets.paper()
    point, = mf.bifurcations(model, "beta_o", (1.24, 1.245))
    return model, point, mf.bifurcation_curve(model, point, "beta_att", (0.5, 7.0))


def pe_phase_of(model, x0):
    """The rotation of the checkpoint's PE window under which x0 is a fixed point of the L-step map."""
    pe = np.asarray(model.checkpoint.pe, dtype=float)
    rotations = [np.roll(pe, i, axis=0) for i in range(L)]
    return min(rotations, key=lambda r: np.abs(n_step_map(model, r, L)(x0) - x0).max())


def test_every_point_of_the_rest_cycle_neimark_sacker_curve_has_a_unit_pair(ns_curve):
    # the critical pair of the L-step map, from its central-difference Jacobian (h = 1e-6: the multipliers' error
    # is ~7e-12, tests/simulate/test_orbits.py) at every curve point: |μ| = 1 to 1e-10, a complex pair
    model, point, curve = ns_curve
    assert curve.parameters == ("beta_o", "beta_att") and curve.period == L and curve.kind == "neimark_sacker"
    beta_att = curve.values[:, 1]
    assert beta_att.min() == 0.5 and beta_att.max() == 7.0 and len(curve.values) >= 20
    worst = 0.0
    for (beta_o, b_att), points in zip(curve.values, curve.points):
        at = model.replace(beta_o=beta_o, beta_att=b_att)
        x0 = points[0]
        f = n_step_map(at, pe_phase_of(at, x0), L)
        assert np.abs(f(x0) - x0).max() <= 1e-11                         # on the cycle
        mu = np.linalg.eigvals(central_jacobian(f, x0))
        pair = mu[np.argsort(np.abs(np.abs(mu) - 1))[:2]]
        assert abs(pair[0].imag) > 1e-3 and abs(pair[0] - np.conj(pair[1])) <= 1e-9
        worst = max(worst, np.abs(np.abs(pair) - 1).max())
    assert worst <= 1e-10


def test_the_curve_passes_the_located_point_and_says_supercritical_there(ns_curve):
    model, point, curve = ns_curve
    at_start = np.argmin(np.abs(curve.values[:, 1] - model.beta_att))
    assert abs(curve.values[at_start, 0] - point.value) <= 1e-9
    assert point.criticality == "supercritical" and curve.criticality[at_start] == "supercritical"
    assert abs(curve.coefficients[at_start] - point.coefficient) <= 1e-6 * abs(point.coefficient)


def test_codim_two_points_on_the_curve(ns_curve):
    # the 1:4 resonance: where the pair's angle per L steps is π/2 (checked from the independent Jacobian),
    # and a Chenciner point where l₁ changes sign (its neighbours on the curve have opposite criticality)
    model, _, curve = ns_curve
    kinds = sorted(p.kind for p in curve.special)
    assert kinds == ["chenciner", "resonance_1:4"]
    resonance = next(p for p in curve.special if p.kind == "resonance_1:4")
    at = model.replace(beta_o=resonance.values[0], beta_att=resonance.values[1])
    x0 = resonance.points[0]
    mu = np.linalg.eigvals(central_jacobian(n_step_map(at, pe_phase_of(at, x0), L), x0))
    upper = mu[np.argmin(np.abs(mu - 1j))]
    assert abs(upper - 1j) <= 1e-9
    chenciner = next(p for p in curve.special if p.kind == "chenciner")
    before = curve.values[:, 1] < chenciner.values[1]
    assert set(np.array(curve.criticality)[before]) == {"supercritical"}
    assert set(np.array(curve.criticality)[~before]) == {"subcritical"}


def test_a_user_map_curve_matches_the_henon_flip_curve():
    # the fixed point's flip curve a = 3(1 − b)²/4 (tests/analysis/test_curves.py derives it)
    flip, = mf.bifurcations(HENON, "a", (0.2, 0.5), transient=1_000)
    assert flip.parameter == "a"
    curve = mf.bifurcation_curve(HENON, flip, "b", (-0.5, 0.5))
    a, b = curve.values.T
    assert curve.parameters == ("a", "b") and np.abs(a - 3 * (1 - b) ** 2 / 4).max() <= 1e-9


@pytest.mark.parametrize("change, message", [
    (dict(parameter="beta"), "parameter = 'beta' is not allowed"),
    (dict(parameter="beta_o"), "parameter = 'beta_o' is not allowed: the point was located in it"),
    (dict(interval=(np.nan, 3.0)), "interval = "),
    (dict(interval=(3.0, 1.0)), "interval = "),
    (dict(interval=(3.0, 4.0)), "around the model's beta_att = 2.2"),
    (dict(interval=("x", 3.0)), "interval = "),
    (dict(point="nope"), "point = 'nope' is not allowed"),
    (dict(multipliers=[0.5, 0.2]), "multipliers are not at a neimark_sacker"),
    (dict(located_in=None), "point.parameter = None"),
    (dict(points=np.zeros((4, 5))), r"point.points: shape \(4, 5\)"),
    (dict(state="checkpoint"), "state = 'checkpoint' is not allowed"),
])
def test_bad_input_is_refused_in_one_line_before_any_computation(monkeypatch, change, message):
    def no_work(*args, **kwargs):
        raise AssertionError("computation started")

    monkeypatch.setattr(curves_module, "trace_curve", no_work)
    monkeypatch.setattr(meanfield.attention_orbits, "attention_family", no_work)
    mu = np.exp(2j * np.pi * 0.24)
    point = Bifurcation("neimark_sacker", 1.2434, np.array([mu, np.conj(mu), 0.3]), L, 0.24,
                        np.zeros((L, 12)), -2.6, change.get("located_in", "beta_o"))
    if "multipliers" in change:
        point = Bifurcation("neimark_sacker", 1.2434, np.array(change["multipliers"]), L, 0.24, np.zeros((L, 12)),
                            None, "beta_o")
    if "points" in change:
        point = Bifurcation("neimark_sacker", 1.2434, point.multipliers, L, 0.24, change["points"], None, "beta_o")
    with pytest.raises(ConfigError, match=message) as info:
        mf.bifurcation_curve(mf.presets.paper(), change.get("point", point), change.get("parameter", "beta_att"),
                             change.get("interval", (0.5, 7.0)), state=change.get("state"))
    assert "\n" not in str(info.value)


def test_a_point_from_another_pe_window_needs_its_state():
    """A point located from a state whose PE window is no rotation of the checkpoint's (two rows swapped): without
    that state no phase makes its windows a cycle, and the curve is refused in one line instead of continuing
    another cycle; with it, the curve starts at the point."""
    model = mf.presets.paper()
    pe = np.asarray(model.checkpoint.pe, dtype=float)[[1, 0, 2, 3]]
    settled = mf.simulate(model, 4000, 0, start=mf.State(att=model.checkpoint.att, pe=pe))
    point = mf.bifurcations(model, "beta_o", (1.1, 1.5), state=settled.final_state)[0]
    with pytest.raises(ConfigError, match="^state: the point's windows are no cycle"):
        mf.bifurcation_curve(model, point, "beta_att", (2.1, 2.3))
    curve = mf.bifurcation_curve(model, point, "beta_att", (2.19, 2.21), state=settled.final_state, max_points=2)
    at_start = np.argmin(np.abs(curve.values[:, 1] - model.beta_att))
    assert abs(curve.values[at_start, 0] - point.value) <= 1e-9
