"""Automatic attractor classification on maps with published answers and on the paper's fixtures."""

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from meanfield.analysis import LABELS, Thresholds, classify, classify_many, lyapunov_spectrum
from meanfield.errors import AnalysisError

DATA = Path(__file__).resolve().parents[1] / "data"


def _map_case(maps, name, params, x0, steps=5000, lyap_steps=100_000):
    step, jac = getattr(maps, name)
    series = maps.orbit(step, params, x0, steps, transient=2000)
    res = lyapunov_spectrum(step, jac, x0, lyap_steps, transient=2000, params=params)
    return series, res


@pytest.mark.parametrize(
    "r, label, period",
    [(2.8, "fixed_point", None), (3.5, "periodic", 4), (3.83, "periodic", 3), (4.0, "chaotic", None)],
)
def test_logistic_map_labels(maps, r, label, period):
    series, res = _map_case(maps, "logistic", [r], [0.3])
    for out in (classify(series, res.exponents, res.stderr), classify(series[:, 0])):  # with and without λ
        assert (out.label, out.period) == (label, period), out.reason
    assert out.label in LABELS


def test_henon_is_chaotic_with_evidence(maps):
    series, res = _map_case(maps, "henon", [1.4, 0.3], [0.1, 0.1])
    out = classify(series, res.exponents, res.stderr)
    assert out.label == "chaotic", out.reason
    ev = out.evidence
    assert ev["chaos01_k"] > 0.9 and ev["spectral_entropy"] > 0.5  # broadband
    assert ev["lambda1"] == pytest.approx(0.419, abs=0.01) and ev["lambda2"] < 0
    assert ev["period"] is None and ev["distinct_count"] > 2500 and ev["section_points"] > 100
    with pytest.raises(TypeError):
        ev["label"] = "x"  # read-only evidence
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.label = "periodic"


def test_generalised_henon_is_hyperchaotic(maps):
    series, res = _map_case(maps, "henon3", [1.76, 0.1], [0.0, 0.0, 0.0])
    assert classify(series, res.exponents, res.stderr).label == "hyperchaotic"
    assert classify(series).label == "chaotic"  # the series alone cannot count positive exponents


@pytest.mark.parametrize("coupling", [0.0, 0.5])
def test_circle_map_quasi_periodic(maps, coupling):
    # golden-mean rotation (K = 0) and the sine circle map below criticality (K = 0.5) at Ω = golden mean,
    # outside the main Arnold tongues: λ1 = 0 (K = 0 exactly; ~1e-6 measured at K = 0.5), 0-1 K ~ 0
    omega = (np.sqrt(5) - 1) / 2
    theta, res = _map_case(maps, "circle", [omega, coupling], [0.1])
    obs = np.column_stack([np.cos(2 * np.pi * theta[:, 0]), np.sin(2 * np.pi * theta[:, 0])])
    out = classify(obs, res.exponents, res.stderr)
    assert out.label == "quasi_periodic", out.reason
    assert abs(out.evidence["lambda1"]) < 1e-4 and abs(out.evidence["chaos01_k"]) < 0.1
    assert out.period is None and out.evidence["section_points"] > 100  # a closed curve, not a finite set
    assert classify(obs).label == "quasi_periodic"


def test_paper_fixture_beta_05_is_a_fixed_point():
    traj = np.load(DATA / "traj_beta_0.5.npz")["mo_se"]
    out = classify(traj, transient=1500)
    # the positional encoding leaves a period-4 ripple of amplitude < 1e-3 on the fixed point (spec §8)
    assert out.label == "fixed_point", out.reason
    assert out.evidence["amplitude"] < 1e-3


def test_paper_fixture_beta_25_is_period_96():
    traj = np.load(DATA / "traj_beta_2.5.npz")["mo_se"]
    out = classify(traj[1500:])
    assert (out.label, out.period) == ("periodic", 96), out.reason
    # from step 0 the transient is included: no period, and no guess either
    assert classify(traj).label == "unresolved"


def test_trajectory_like_object(maps):
    series, res = _map_case(maps, "henon", [1.4, 0.3], [0.1, 0.1])
    traj = SimpleNamespace(mo_se=series, lyapunov=res.exponents, lyapunov_stderr=res.stderr)
    assert classify(traj).evidence["lambda1"] == res.exponents[0]
    traj = SimpleNamespace(mo_se=series, lyapunov=None, lyapunov_stderr=None)
    assert classify(traj, feature=1).label == "chaotic"


def test_disagreement_and_unresolved_exponent_give_unresolved(maps):
    series, res = _map_case(maps, "logistic", [3.5], [0.3])
    assert classify(series, [0.3], [0.001]).label == "unresolved"  # period 4 but λ1 > 0
    chaotic, cres = _map_case(maps, "logistic", [4.0], [0.3])
    assert classify(chaotic, [-0.5], [0.001]).label == "unresolved"  # K ~ 1 but λ1 < 0
    out = classify(chaotic, [0.01], [0.02])  # |λ1| < z·SE: sign not resolved
    assert out.label == "unresolved" and "not resolved" in out.reason
    quasi, _ = _map_case(maps, "circle", [(np.sqrt(5) - 1) / 2, 0.0], [0.1])
    assert classify(np.cos(2 * np.pi * quasi), [-0.2], [0.001]).label == "unresolved"


def test_exponents_decide_when_the_0_1_test_is_inconclusive(maps):
    chaotic, _ = _map_case(maps, "logistic", [4.0], [0.3])
    strict = Thresholds(k_regular=-1.0, k_chaotic=2.0)  # force the series to abstain
    assert classify(chaotic, [0.69], [0.001], thresholds=strict).label == "chaotic"
    assert classify(chaotic, [-0.5], [0.001], thresholds=strict).label == "unresolved"
    assert classify(chaotic, thresholds=strict).label == "unresolved"


def test_divergent_inputs():
    x = np.sin(np.arange(500.0))
    for bad in (np.r_[x, np.nan], np.r_[x, np.inf], np.r_[x, 1e7]):
        assert classify(bad).label == "divergent"
    assert classify(x, [np.nan], [0.1]).label == "divergent"
    assert classify(x, [np.inf, 0.0], [0.1, 0.1]).label == "divergent"


@pytest.mark.parametrize(
    "call",
    [
        lambda: classify([]),
        lambda: classify(np.zeros((0, 3))),
        lambda: classify(np.ones(199)),
        lambda: classify(np.ones(300), transient=150),
        lambda: classify(np.ones(300), transient=-1),
        lambda: Thresholds(period_tol=0.0),
        lambda: Thresholds(k_regular=0.9, k_chaotic=0.1),
        lambda: Thresholds(chaos01_samples=50),
        lambda: classify(np.ones((300, 2)), feature=2),
        lambda: classify(np.ones((300, 2)), section_feature=5),
        lambda: classify(np.ones(300), [0.1, 0.2], [0.1]),
        lambda: classify(np.ones(300), None, [0.1]),
        lambda: classify(np.ones(300), [0.1], [-0.1]),
        lambda: classify(np.ones(300), [0.1], [np.nan]),
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
    cases = [_map_case(maps, "logistic", [r], [0.3], steps=2000, lyap_steps=20000) for r in rs]
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
    ripple = 1e-3 * np.tile([0.0, 0.4, 0.0, -0.4], 100)  # amplitude 8e-4
    assert classify(ripple).label == "fixed_point"
    assert classify(ripple, thresholds=Thresholds(fixed_point_amplitude=1e-4)).period == 4


def test_stored_evidence_decides_the_same_label(maps):
    # a sweep stores the evidence as floats (None -> NaN) and `meanfield analyze` re-decides from it
    from meanfield.analysis import EVIDENCE, decide
    cases = [_map_case(maps, "logistic", [r], [0.3]) for r in (2.8, 3.5, 3.83, 4.0)]
    for series, _ in cases:
        direct = classify(series, [0.1], [0.01])
        stored = np.array([np.nan if direct.evidence[k] is None else direct.evidence[k] for k in EVIDENCE])
        again = decide(dict(zip(EVIDENCE, stored)))
        assert again.label == direct.label and again.period == direct.period
    # new thresholds change the decision without re-measuring
    series, _ = cases[-1]
    ev = classify(series, [0.05], [0.01]).evidence
    assert decide(ev).label == "chaotic"
    assert decide(ev, Thresholds(lyap_zero=0.1)).label == "unresolved"
