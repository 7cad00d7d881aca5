"""Bad input: ConfigError naming the key, raised before any kernel runs, nothing written."""
import importlib
import math

import numpy as np
import pytest

import meanfield as mf
from meanfield.model import weights as W
from meanfield.model.spec import ModelSpec

from ..cli.helpers import cli


@pytest.fixture(autouse=True)
def no_kernel(monkeypatch):
    """Fail loudly if validation lets a bad call reach a backend."""
    def refuse(name):
        raise AssertionError("kernel reached with invalid input")
    monkeypatch.setattr(importlib.import_module("meanfield.simulation"), "_backend", refuse)


@pytest.mark.parametrize("key, value", [
    ("beta_o", math.nan), ("beta_o", math.inf), ("gamma", math.nan), ("epsilon", -0.1), ("epsilon", 1.5),
    ("epsilon", math.nan), ("beta_att", math.inf), ("scaling_att", "abc"), ("context", 0), ("context", 2.5),
    ("unknown_key", 1.0), ("control.rho", 1.5), ("control.kp", math.nan),
])
def test_bad_overrides_name_the_key(key, value):
    with pytest.raises(mf.ConfigError, match=key.split(".")[-1]):
        mf.presets.paper(**{key: value})


@pytest.mark.parametrize("steps, transient, key", [(0, 0, "steps"), (100, 100, "transient"), (10, -1, "transient"),
                                                   (2.5, 0, "steps")])
def test_bad_run_lengths(steps, transient, key):
    with pytest.raises(mf.ConfigError, match=key):
        mf.simulate(mf.presets.paper(), steps, transient)


def test_bad_start_states():
    model = mf.presets.paper()
    with pytest.raises(mf.ConfigError, match="start.att"):
        mf.simulate(model, 10, start=mf.State(np.zeros((5, 3)), model.checkpoint.pe))
    with pytest.raises(mf.ConfigError, match="start.att"):
        mf.simulate(model, 10, start=mf.State(np.zeros((4, 2)), model.checkpoint.pe))
    with pytest.raises(mf.ConfigError, match="start.pe"):
        mf.State(np.zeros((4, 3)), np.zeros((4, 2)))
    with pytest.raises(mf.ConfigError, match="start.token"):
        mf.State.from_token(model, np.zeros(101))


def test_bad_observables_and_exponents():
    model = mf.presets.paper()
    with pytest.raises(mf.ConfigError, match="record"):
        mf.simulate(model, 10, record=("att", "nonsense"))
    with pytest.raises(mf.ConfigError, match="lyapunov"):
        mf.simulate(model, 10, lyapunov=13)
    token_start = mf.State.from_pattern(model)
    with pytest.raises(mf.ConfigError, match="lyapunov"):
        mf.simulate(model, 10, 0, start=token_start, lyapunov=True)


def test_all_exponents_of_a_wide_window_are_refused_before_anything_runs(tmp_path):
    # M = 64, L = 16: lyapunov=True would be 1 024 tangent vectors; the kernel is never reached (this module's
    # guard); the paper model's 12 stay "all of them" (tests/simulate/test_lyapunov.py)
    wide = mf.presets.random(seed=0, n_features=64, semantic_bits=128, context=16, pe_bits=4)
    start = mf.State.from_token(wide, np.ones(132))
    with pytest.raises(mf.ConfigError, match=r"lyapunov = True is not allowed.*1024 exponents.*lyapunov = 8"):
        mf.simulate(wide, 100, 50, start=start, lyapunov=True)
    # a run file says the same when it is loaded, before anything runs (a dry run included)
    run = tmp_path / "wide.toml"
    run.write_text('steps = 100\ntransient = 50\nlyapunov = true\n[model]\npreset = "random"\nn_features = 64\n'
                   'semantic_bits = 128\ncontext = 16\npe_bits = 4\n[grid]\nbeta_o = [1.0]\n')
    with pytest.raises(mf.ConfigError, match="lyapunov = True is not allowed"):
        mf.load_run(str(run))


def test_bad_weights_and_tables():
    bad = {a: np.ones((3, 10)) for a in W.FEATURES}
    bad["v"] = bad["v"] * 0
    with pytest.raises(mf.ConfigError, match="weights.v"):
        W.sign_classes(bad, 2)
    coef = {a: np.ones((4, 3)) for a in W.FEATURES}
    pe = {a: np.ones((3, 2)) for a in W.FEATURES}
    with pytest.raises(mf.ConfigError, match="coefficients.q"):
        ModelSpec({**coef, "q": np.zeros((3, 3))}, pe)
    with pytest.raises(mf.ConfigError, match="pe_weights"):
        ModelSpec(coef, {**pe, "k": np.zeros((2, 2))})
    with pytest.raises(mf.ConfigError, match="M = 17"):
        ModelSpec({a: np.zeros((2 ** 16, 17)) for a in W.FEATURES}, {a: np.zeros((17, 1)) for a in W.FEATURES})


@pytest.mark.integration
def test_cli_bad_input_writes_nothing(tmp_path, capsys):
    out = tmp_path / "never.h5"
    for args in (["--set", "beta_o=nan"], ["--set", "epsilon=2"], ["--steps", "10", "--transient", "10"],
                 ["--set", "foo=1"]):
        assert cli(["simulate", "-o", out, *args]) == 2
        err = capsys.readouterr().err
        assert "error:" in err and "Traceback" not in err, err
        assert not out.exists()


@pytest.mark.parametrize("call", [lambda: mf.periodic_orbit(mf.presets.paper(), period=-4),
                                  lambda: mf.bifurcations(mf.presets.paper(), "beta_o", (1.2, 1.3), period=0)],
                         ids=["periodic_orbit", "bifurcations"])
def test_a_bad_period_is_refused_before_any_kernel_runs(call):
    with pytest.raises(mf.ConfigError, match="period"):
        call()
