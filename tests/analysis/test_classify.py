"""Attractor classification (docs/classification.md): labels of maps with published answers, the paper's
fixtures, the exponent veto, divergence, stored evidence and bad input."""

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from meanfield.analysis import LABELS, Thresholds, classify, classify_many, lyapunov_spectrum
from meanfield.analysis.classify import decide
from meanfield.analysis.evidence import EVIDENCE
from meanfield.errors import AnalysisError

from .textbook import GOLDEN, circle_rotation_number, omega_for_rotation

DATA = Path(__file__).resolve().parents[1] / "data"


def _map_case(maps, name, params, x0, steps=20_000, transient=2000):
    step, jac = getattr(maps, name)
    series = maps.orbit(step, params, x0, steps, transient=transient)
    res = lyapunov_spectrum(step, jac, x0, steps, transient=transient, params=params)
    return series, res


@pytest.mark.parametrize(
    "r, label, period",
    [(2.8, "fixed_point", 1), (3.5, "periodic", 4), (3.83, "periodic", 3), (4.0, "chaotic", None)],
)
def test_logistic_map_labels(maps, r, label, period):
    # May 1976; Strogatz 1994 §10.2: fixed point for r < 3, period 4 at 3.5, the period-3 window, chaos at r = 4
    series, res = _map_case(maps, "logistic", [r], [0.3])
    for out in (classify(series, res.exponents, res.stderr), classify(series[:, 0])):  # with and without λ
        assert (out.label, out.period) == (label, period), out.reason
    assert out.label in LABELS


def test_henon_is_chaotic_with_evidence(maps):
    series, res = _map_case(maps, "henon", [1.4, 0.3], [0.1, 0.1])
    out = classify(series, res.exponents, res.stderr)
    assert out.label == "chaotic", out.reason
    ev = out.evidence
    assert set(ev) == set(EVIDENCE)
    assert ev["birkhoff_drift"] > 1e-4 and ev["spectral_entropy"] > 0.5  # irregular, broadband
    assert ev["lambda1"] == pytest.approx(0.419, abs=0.02) and ev["lambda2"] < 0  # Sprott 2003: 0.41922
    assert ev["period"] is None and ev["distinct_count"] > 2500 and ev["section_points"] > 100
    assert ev["chaos01_k"] is None  # with exponents the 0-1 test cannot change the label and is skipped
    assert classify(series).evidence["chaos01_k"] > 0.9
    assert ev["window"] == 10_000 and ev["transient_end"] == 0
    with pytest.raises(TypeError):
        ev["label"] = "x"  # read-only evidence
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.label = "periodic"


def test_generalised_henon_is_hyperchaotic(maps):
    series, res = _map_case(maps, "henon3", [1.76, 0.1], [0.0, 0.0, 0.0])
    assert classify(series, res.exponents, res.stderr).label == "hyperchaotic"
    assert classify(series).label == "chaotic"  # the series alone cannot count positive exponents


@pytest.mark.parametrize("coupling", [0.0, 0.5, 0.9])
def test_circle_map_quasi_periodic_reports_its_rotation_number(maps, coupling):
    # golden-mean rotation number below criticality (Shenker 1982): the reported frequency is the rotation
    # number measured independently from the lift, folded to [0, 1/2] (a real observable cannot tell rho from -rho)
    omega = omega_for_rotation(coupling, GOLDEN) if coupling else GOLDEN
    theta, res = _map_case(maps, "circle", [omega, coupling], [0.1])
    obs = np.column_stack([np.cos(2 * np.pi * theta[:, 0]), np.sin(2 * np.pi * theta[:, 0])])
    rho = circle_rotation_number(omega, coupling, 10**6)
    for out in (classify(obs, res.exponents, res.stderr), classify(obs)):
        assert out.label == "quasi_periodic", out.reason
        # 1e-6: the lift's estimate over 1e6 steps; the line frequency itself is good to ~1e-9
        assert out.frequencies == pytest.approx((min(rho, 1 - rho),), abs=1e-6)
        assert out.period is None and out.evidence["curve_spread"] < 0.1
    assert classify(obs[:, 0]).label == "quasi_periodic"


def test_paper_fixture_beta_05_is_a_fixed_point_of_the_forced_map():
    traj = np.load(DATA / "traj_beta_0.5.npz")["mo_se"]
    # the positional encoding forces the map with period L = 4: the rest state repeats every 4 steps with a
    # ripple of 5e-4 (docs/model.md: |mo_se| < 3e-4 after 20000 steps), a fixed point of the 4-step map
    out = classify(traj, transient=1500, forcing_period=4)
    assert (out.label, out.period) == ("fixed_point", 4), out.reason
    assert classify(traj, transient=1500).label == "periodic"  # unforced reading: a period-4 cycle


def test_paper_fixture_beta_25_is_period_96_and_reports_its_transient():
    traj = np.load(DATA / "traj_beta_2.5.npz")["mo_se"]
    out = classify(traj[1500:], forcing_period=4)
    assert (out.label, out.period) == ("periodic", 96), out.reason
    # from step 0 the approach is in the series: the orbit is on the cycle (to 6e-7) after ~1480 steps
    # (docs/model.md), at the rounding floor a few hundred steps later, and at least 10 periods before the end
    out = classify(traj, forcing_period=4)
    assert (out.label, out.period) == ("periodic", 96), out.reason
    assert 1480 <= out.evidence["transient_end"] <= 3000 - 2 * 96


def test_exactly_constant_tail_after_a_transient_is_a_fixed_point(maps):
    # a chaotic transient, then exactly constant samples: the old classifier raised from the spectral entropy
    # of the all-zero spectrum
    x = np.r_[maps.orbit(maps.logistic[0], [4.0], [0.3], 300)[:, 0], np.full(700, 0.25)]
    for series in (x, x[-500:]):
        out = classify(series)
        assert (out.label, out.period) == ("fixed_point", 1), out.reason
    assert classify(x).evidence["transient_end"] == 300
    # superstable fixed point 1/2 of r = 2, reached to the last bit after a few steps
    out = classify(maps.orbit(maps.logistic[0], [2.0], [0.3], 500)[:, 0])
    assert (out.label, out.period) == ("fixed_point", 1) and 0 < out.evidence["transient_end"] < 10


def test_trajectory_like_object(maps):
    series, res = _map_case(maps, "henon", [1.4, 0.3], [0.1, 0.1])
    traj = SimpleNamespace(mo_se=series, lyapunov=res.exponents, lyapunov_stderr=res.stderr)
    assert classify(traj).evidence["lambda1"] == res.exponents[0]
    traj = SimpleNamespace(mo_se=series, lyapunov=None, lyapunov_stderr=None)
    assert classify(traj, feature=1).label == "chaotic"


def test_exponents_veto_only_when_significant(maps):
    cycle, _ = _map_case(maps, "logistic", [3.5], [0.3])
    assert classify(cycle, [0.3], [0.001]).label == "unresolved"  # a period, but λ1 significantly > 0
    # a clean period with a multiplier close to 1: λ1 ~ 0 within its error stands (the old 1e-4 band vetoed it)
    assert classify(cycle, [-5e-5], [3e-5]).label == "periodic"
    chaotic, _ = _map_case(maps, "logistic", [4.0], [0.3])
    assert classify(chaotic, [0.01], [0.02]).label == "unresolved"  # chaos needs λ1 significantly > 0
    assert classify(chaotic, [-0.5], [0.001]).label == "unresolved"
    quasi = np.cos(2 * np.pi * GOLDEN * np.arange(20_000))
    # a regular orbit's finite-time exponent and its block error both go like 1/n: consistent with 0
    assert classify(quasi, [3e-5], [7e-5]).label == "quasi_periodic"
    assert classify(quasi, [0.2], [0.001]).label == "unresolved"
    # without standard errors the lyap_zero band applies
    assert classify(quasi, [5e-5]).label == "quasi_periodic"
    assert classify(quasi, [5e-5], thresholds=Thresholds(lyap_zero=1e-5)).label == "unresolved"


def test_exponents_decide_where_the_series_abstains():
    base = {key: None for key in EVIDENCE}
    base.update(max_abs=1.0, amplitude=1.0, window=10_000, forcing_period=1, chaos01_k=0.5)
    irregular = dict(base, birkhoff_drift=1e-2)
    assert decide(irregular).label == "unresolved"
    assert decide(dict(irregular, lambda1=0.05, lambda1_stderr=0.001)).label == "chaotic"
    assert decide(dict(irregular, lambda1=0.05, lambda1_stderr=0.001, lambda2=0.02,
                       lambda2_stderr=0.001)).label == "hyperchaotic"
    # between "regular" and "irregular" (a torus near a resonance, or weak chaos): λ1 ~ 0 says torus
    grey = dict(base, birkhoff_drift=1e-6, torus_dim=1, frequency1=0.3, curve_spread=0.01)
    assert decide(grey).label == "unresolved"
    assert decide(dict(grey, lambda1=1e-6, lambda1_stderr=1e-5)).label == "quasi_periodic"
    assert decide(dict(grey, lambda1=0.01, lambda1_stderr=1e-4)).label == "chaotic"
    # regular lines at rational frequencies are a cycle that has not reached its floor: no torus
    assert decide(dict(grey, birkhoff_drift=1e-12, line_period=475)).label == "unresolved"
    # a period seen fewer than ten times is no period yet
    assert decide(dict(base, period=300, period_repeats=4.0, period_decay=0.0)).label == "unresolved"
    assert decide(dict(base, period=300, period_repeats=12.0, period_decay=0.0)).label == "periodic"
    assert decide(dict(base, period=2, period_repeats=12.0, period_decay=0.0, forcing_period=4)).label == "fixed_point"


def test_divergent_inputs_are_checked_first():
    x = np.sin(np.arange(500.0))
    for bad in (np.r_[x, np.nan], np.r_[x, np.inf], np.r_[x, 1e7]):
        assert classify(bad).label == "divergent"
        assert classify(bad, [np.nan], [np.nan]).label == "divergent"  # a run that broke down
    assert classify(x, [np.nan], [0.1]).label == "divergent"
    assert classify(x, [np.inf, 0.0], [0.1, 0.1]).label == "divergent"
    assert classify(x, [0.1, np.nan], [0.01, np.nan]).label == "divergent"
    # a standard error that was not estimated (one block) is NaN: the exponent is taken with the lyap_zero band
    assert classify(np.cos(2 * np.pi * GOLDEN * np.arange(20_000)), [1e-6], [np.nan]).label == "quasi_periodic"


@pytest.mark.parametrize(
    "call",
    [
        lambda: classify([]),
        lambda: classify(np.zeros((0, 3))),
        lambda: classify(np.ones(199)),
        lambda: classify(np.ones(300), transient=150),
        lambda: classify(np.ones(300), transient=-1),
        lambda: classify(np.ones(300), forcing_period=0),
        lambda: Thresholds(period_rtol=0.0),
        lambda: Thresholds(k_chaotic=1.5),
        lambda: Thresholds(chaos01_samples=50),
        lambda: Thresholds(window_fraction=0.0),
        lambda: classify(np.ones((300, 2)), feature=2),
        lambda: classify(np.ones((300, 2)), section_feature=5),
        lambda: classify(np.ones(300), [0.1, 0.2], [0.1]),
        lambda: classify(np.ones(300), None, [0.1]),
        lambda: classify(np.ones(300), [0.1], [-0.1]),
        lambda: classify(np.ones((2, 2, 300))),
        lambda: classify_many(np.ones(300)),
        lambda: classify_many(np.ones((2, 300)), np.ones((3, 1))),
    ],
)
def test_bad_input_raises(call):
    with pytest.raises(AnalysisError):
        call()


def test_classify_many_matches_classify(maps):
    rs = [2.8, 3.5, 3.83, 4.0]
    cases = [_map_case(maps, "logistic", [r], [0.3], steps=2000, transient=2000) for r in rs]
    series = np.stack([s[:, 0] for s, _ in cases])
    lam = np.stack([res.exponents for _, res in cases])
    err = np.stack([res.stderr for _, res in cases])
    many = classify_many(series, lam, err)
    assert [c.label for c in many] == ["fixed_point", "periodic", "periodic", "chaotic"]
    assert many == [classify(s, l_, e) for s, l_, e in zip(series, lam, err)]
    assert [c.label for c in classify_many(series[:, :, None])] == [c.label for c in many]


def test_thresholds_are_frozen_and_used():
    th = Thresholds()
    with pytest.raises(dataclasses.FrozenInstanceError):
        th.z = 1.0
    assert th.window(1000) == 1000 and th.window(20_000) == 10_000 and th.window(200_000) == 50_000
    pattern = np.tile(np.random.default_rng(0).uniform(size=50), 8)  # 8 repetitions of a period 50
    assert classify(pattern).label == "unresolved"
    assert classify(pattern, thresholds=Thresholds(min_repeats=8)).period == 50


def test_stored_evidence_decides_the_same_label(maps):
    # a sweep stores the evidence as floats (None -> NaN) and `meanfield analyze` re-decides from it
    cases = [_map_case(maps, "logistic", [r], [0.3]) for r in (2.8, 3.5, 3.83, 4.0)]
    cases.append((np.cos(2 * np.pi * GOLDEN * np.arange(20_000)), None))
    for series, _ in cases:
        for lam, se in ((None, None), ([0.1], [0.01])):
            direct = classify(series, lam, se)
            stored = np.array([np.nan if direct.evidence[k] is None else direct.evidence[k] for k in EVIDENCE], float)
            again = decide(dict(zip(EVIDENCE, stored.tolist())))
            assert (again.label, again.period, again.reason) == (direct.label, direct.period, direct.reason)
    # new thresholds change the decision without re-measuring
    ev = classify(cases[3][0], [0.05], [0.01]).evidence
    assert decide(ev).label == "chaotic"
    assert decide(ev, Thresholds(z=10.0)).label == "unresolved"


@settings(deadline=None, max_examples=60)
@given(arrays(np.float64, st.tuples(st.integers(200, 600), st.integers(1, 3)),
              elements=st.one_of(st.floats(-1e5, 1e5), st.sampled_from([0.0, 1.0, -1.0]))))
def test_finite_bounded_input_always_gets_a_label(y):
    # whatever the values (constant stretches, a few levels, steps, noise): a label, never an exception
    for lam, se in ((None, None), ([0.0], [0.0]), ([np.nan], [np.nan])):
        assert classify(y, lam, se).label in LABELS
