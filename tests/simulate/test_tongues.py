"""Arnold tongues (meanfield/tongues.py), checked against what the fold continuation does not compute: runs of
the map inside and outside the traced sides (their rotation numbers, locked at 1/4 or turning on either side of
it), and the tongue's tip against the 1:4 resonance point of the rest cycle's Neimark–Sacker curve, a point on
another curve with another defining function."""

import numpy as np
import pytest

import meanfield as mf
import meanfield.tongues as tongues_module
from meanfield.analysis.curves import Curve
from meanfield.errors import AnalysisError, ConfigError
from meanfield.tongues import resonance_start

#: Inside the paper model's 1:4 tongue at β_att = 2.2 (its sides are at β_o ≈ 1.24949 and 1.25102).
LOCKED_BETA_O = 1.2502562


def settled(model, start=None, steps=200_000, transient=100_000):
    run = mf.simulate(model, steps, transient, start=start, record="att", compute=mf.Compute(progress=False))
    return run, mf.analysis.rotation_number(run)


@pytest.fixture(scope="module")
def ns_curve():
    """The rest cycle's Neimark–Sacker curve over β_att ∈ [2.2, 5.2] (its 1:4 point at 4.9507988)."""
    point, = mf.bifurcations(mf.presets.paper(), "beta_o", (1.24, 1.245))
    return mf.bifurcation_curve(mf.presets.paper(), point, "beta_att", (2.2, 5.2))


@pytest.fixture(scope="module")
def tongue():
    model = mf.presets.paper().replace(beta_o=LOCKED_BETA_O)
    run, rotation = settled(model)
    assert rotation.locked == (1, 4)
    return model, run.final_state, mf.arnold_tongue(model, run.final_state, interval=(2.2, 5.2))


def side_at(curve, beta_att):
    """β_o of a side at ``beta_att`` (each side runs once from β_att = 2.2 to the tip)."""
    order = np.argsort(curve.values[:, 1])
    return float(np.interp(beta_att, curve.values[order, 1], curve.values[order, 0]))


@pytest.mark.slow  # two fold curves of a 16-point cycle and ten runs of 2·10^5 steps: ~30 s
def test_the_paper_models_1_4_tongue_ends_at_the_1_4_resonance_and_its_sides_bound_locking(tongue, ns_curve):
    model, state, found = tongue
    assert found.locked == (1, 4) and found.period == 16 and found.sides[0].kind == "fold"
    assert repr(found).startswith("Tongue(1:4, period 16 steps") and len(repr(found)) < 300
    # the tip against the 1:4 resonance of the rest cycle's Neimark–Sacker curve (μ = ±i of its L-step map): the
    # sides approach the tip in steps that shrink to ~1e-8 there, so 1e-6 is well inside the continuation's own
    # accuracy and 500 times below the tongue's width at β_att = 4.2 (5.6e-4)
    r4, = [p.values for p in ns_curve.special if p.kind == "resonance_1:4"]
    assert found.tip is not None and np.abs(found.tip - r4).max() <= 1e-6
    for side in found.sides:     # each side one boundary, from its fold at β_att = 2.2 to (its own turn at) the tip
        assert side.values[0, 1] == 2.2 and np.abs(side.values[-1] - found.tip).max() <= 1e-6
        assert np.all(np.diff(side.values[:, 1]) >= 0) or np.all(np.diff(side.values[:, 1]) <= 0)
    # runs of the map: inside the sides (a tenth of the width in) locked at 1/4, outside (a fifth of the width
    # out) on the torus, turning slower than 1/4 below the tongue and faster above; at β_att = 2.2 and, followed
    # along the tongue's middle from the locked state, at 4.2
    start = state
    for beta_att in (2.2, 2.9, 3.6, 4.2):
        lo, hi = sorted(side_at(side, beta_att) for side in found.sides)
        start = settled(model.replace(beta_att=beta_att, beta_o=(lo + hi) / 2), start)[0].final_state
        if beta_att not in (2.2, 4.2):
            continue
        width = hi - lo
        for beta_o, expected in ((lo + 0.1 * width, 0.25), (hi - 0.1 * width, 0.25), (lo - 0.2 * width, "below"),
                                 (hi + 0.2 * width, "above")):
            rotation = settled(model.replace(beta_att=beta_att, beta_o=beta_o), start)[1]
            if expected == 0.25:
                assert rotation.locked == (1, 4), (beta_att, beta_o, rotation)
            else:
                assert rotation.locked is None and (rotation.number < 0.25) == (expected == "below"), \
                    (beta_att, beta_o, rotation)


@pytest.mark.slow  # the search for a locked run near the resonance (~40 runs of 3·10^5 steps) and the tongue: ~30 s
def test_the_1_4_tongue_drawn_from_its_resonance_point_is_the_same_tongue(tongue, ns_curve):
    at, state = resonance_start(mf.presets.paper(), ns_curve, (1, 4))
    assert settled(at, state, 50_000, 0)[1].locked == (1, 4)          # a run of the map confirms the lock
    found = mf.arnold_tongue(at, state, interval=(2.2, 5.2))
    r4, = [p.values for p in ns_curve.special if p.kind == "resonance_1:4"]
    assert np.abs(found.tip - r4).max() <= 1e-6
    # traced from a cycle near the tip, the sides reach β_att = 2.2 at the folds the locked state there has
    # (to the continuations' accuracy, 1e-9 in β_o)
    for side, other in zip(found.sides, tongue[2].sides):
        end = side.values[np.argmin(side.values[:, 1])]
        assert end[1] == 2.2 and abs(end[0] - other.values[0, 0]) <= 1e-7


def fake_curve(kind, angles):
    """A Curve with a complex pair at the given angles (turns) and nothing else of note."""
    mu = np.exp(2j * np.pi * np.asarray(angles))
    k = len(angles)
    return Curve(kind, 4, ("beta_o", "beta_att"), np.column_stack([np.full(k, 1.24), np.linspace(2, 3, k)]),
                 np.zeros((k, 4, 12)), np.column_stack([mu, np.conj(mu), np.full(k, 0.1)]), np.zeros(k, bool), [],
                 np.full(k, np.nan))


@pytest.mark.parametrize("curve, locked, error, message", [
    (fake_curve("fold", [0.2, 0.3]), (1, 4), ConfigError, "must be a Neimark–Sacker curve"),
    (fake_curve("neimark_sacker", [0.2, 0.3]), (1, 2), ConfigError, r"locked = \(1, 2\) is not allowed"),
    (fake_curve("neimark_sacker", [0.2, 0.3]), (2, 8), ConfigError, "lowest terms"),
    (fake_curve("neimark_sacker", [0.2, 0.3]), "1/4", ConfigError, "must be \\(p, k\\)"),
    (fake_curve("neimark_sacker", [0.2, 0.22]), (1, 4), AnalysisError, "never passes 1/4"),
])
def test_resonance_start_refuses_what_has_no_tongue(monkeypatch, curve, locked, error, message):
    monkeypatch.setattr(tongues_module, "simulate", lambda *a, **k: pytest.fail("a run started"))
    with pytest.raises(error, match=message):
        resonance_start(mf.presets.paper(), curve, locked)


def test_a_state_that_is_not_locked_on_a_torus_is_refused():
    # at β_o = 1.2 the rest cycle is stable: its orbit is a fixed point of the L-step map, no tongue
    model = mf.presets.paper().replace(beta_o=1.2)
    state = mf.simulate(model, 20_000, compute=mf.Compute(progress=False)).final_state
    with pytest.raises(AnalysisError, match=r"^state: not on a cycle locked on a torus \(locked at 0/1"):
        mf.arnold_tongue(model, state, interval=(2.0, 3.0))


@pytest.mark.parametrize("change, message", [
    (dict(model="paper"), "model = 'paper' is not allowed"),
    (dict(state=None), "state = None is not allowed"),
    (dict(parameters=("beta_o",)), r"parameters = \('beta_o',\) is not allowed: must be two"),
    (dict(parameters=("beta_o", "beta")), "each must be one of"),
    (dict(parameters=("beta_o", "beta_o")), "must be two different parameters"),
    (dict(interval=(3.0, 4.0)), "around the model's beta_att = 2.2"),
    (dict(interval=(np.nan, 3.0)), "interval = "),
    (dict(interval=("a", 3.0)), "must be two numbers"),
    (dict(search=0.0), "search = 0.0 is not allowed"),
    (dict(search=np.inf), "search = inf is not allowed"),
])
def test_bad_input_is_refused_in_one_line_before_any_computation(monkeypatch, change, message):
    def no_work(*args, **kwargs):
        raise AssertionError("computation started")

    monkeypatch.setattr(tongues_module, "simulate", no_work)
    monkeypatch.setattr(tongues_module, "bifurcations", no_work)
    model = mf.presets.paper()
    arguments = dict(model=model, state=model.checkpoint, parameters=("beta_o", "beta_att"), interval=(0.5, 7.0),
                     search=0.05) | change
    with pytest.raises(ConfigError, match=message) as info:
        mf.arnold_tongue(arguments.pop("model"), arguments.pop("state"), **arguments)
    assert "\n" not in str(info.value)
