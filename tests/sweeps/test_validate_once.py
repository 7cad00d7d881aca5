"""One owner of a run's rules (meanfield.model.run_rules): simulate_batch and the run-file loader agree on the
run lengths, the exponent count and the backends; a run file's grid is checked axis by axis; a RunSpec is built
once; --set has one grammar in every subcommand."""
import json

import numpy as np
import pytest

import meanfield as mf
from meanfield.errors import ConfigError
from meanfield.model import layout
from meanfield.model.run_rules import exponent_count, parse_backend
from meanfield.sweeps.config.runfile import RunSpec

from .helpers import tiny_text

KP_AXIS = 'beta_o = { start = 1.0, stop = 2.6, num = 12 }'


@pytest.mark.parametrize("steps, transient", [(100, 100), (0, 0), (10, -1), (2.5, 0)])
def test_run_lengths_are_refused_alike(steps, transient):
    text = tiny_text(steps=steps, transient=transient)
    with pytest.raises(ConfigError) as from_file:
        mf.load_run(text)
    with pytest.raises(ConfigError) as from_api:
        mf.simulate_batch(mf.presets.paper(), steps, transient)
    assert str(from_file.value) == str(from_api.value)


def test_a_controlled_run_counts_its_controller_exponents_in_both():
    # paper model: L = 4, M = 3, so L·M = 12 and with the controller's integral and previous error 12 + 6
    text = tiny_text(lyapunov="true", transient=200).replace(KP_AXIS, '"control.kp" = [0.0, 0.2]')
    run = mf.load_run(text)
    assert run.lyapunov == 18
    batch = mf.simulate_batch(run.model, 30, 10, parameters={"control.kp": np.array([0.0, 0.0])}, lyapunov=True,
                              record=("att",))
    # a batch of only uncontrolled points of that run (a chunk of the kp = 0 row) asks for the same 18; its
    # controller directions are not coordinates of the uncontrolled map: exponent -inf
    assert batch.lyapunov.shape == (2, 18)
    assert np.all(batch.lyapunov[:, 12:] == -np.inf) and np.all(np.isfinite(batch.lyapunov[:, :12]))
    assert mf.load_run(tiny_text(lyapunov="true")).lyapunov == 12
    assert mf.simulate(mf.presets.paper(), 30, 10, lyapunov=True).lyapunov.shape == (12,)


@pytest.mark.parametrize("toml, value", [("0", 0), ("13", 13), ("-1", -1), ("2.5", 2.5), ('"all"', "all")])
def test_exponent_counts_are_refused_alike(toml, value):
    with pytest.raises(ConfigError, match="lyapunov") as from_file:
        mf.load_run(tiny_text(lyapunov=toml))
    with pytest.raises(ConfigError, match="lyapunov") as from_api:
        mf.simulate(mf.presets.paper(), 30, 10, lyapunov=value)
    assert str(from_file.value) == str(from_api.value)
    assert exponent_count(False, mf.presets.paper()) == 0


def test_backends_are_parsed_in_one_place():
    assert parse_backend("cuda") == parse_backend("cuda:float64") == ("cuda", "float64")
    assert parse_backend("cuda:float32") == ("cuda", "float32") and parse_backend("cpu") == ("cpu", "float64")
    run = mf.load_run(tiny_text().replace('name = "tiny"', 'name = "tiny"\nbackend = "cuda:float32"'))
    assert (run.device, run.dtype) == ("cuda", "float32")
    for bad in ("gpu", "cuda:float16"):
        with pytest.raises(ConfigError, match="backend") as from_file:
            mf.load_run(tiny_text().replace('name = "tiny"', f'name = "tiny"\nbackend = "{bad}"'))
        with pytest.raises(ConfigError, match="backend") as from_api:
            mf.simulate_batch(mf.presets.paper(), 10, compute=mf.Compute(backend=bad))
        assert str(from_file.value) == str(from_api.value)


def test_the_grid_is_checked_axis_by_axis(monkeypatch):
    # 3000 x 3000 = 9e6 points: the kernel parameters of the whole grid would be 9e6 rows (about 1 GB)
    text = tiny_text().replace(KP_AXIS, 'beta_o = { start = 0.0, stop = 3.0, num = 3000 }\n'
                                        'epsilon = { start = 0.0, stop = 0.5, num = 3000 }')
    rows = []
    real = layout.batch_parameters

    def counting(model, overrides=None):
        out = real(model, overrides)
        rows.append(out.shape[0])
        return out

    monkeypatch.setattr("meanfield.sweeps.config.run_checks.batch_parameters", counting)
    run = mf.load_run(text)
    assert run.n_points == 9_000_000 and max(rows) == 3000
    bad = text.replace("stop = 0.5, num = 3000", "stop = 1.5, num = 3000")      # epsilon > 1 at its end
    with pytest.raises(ConfigError, match="epsilon"):
        mf.load_run(bad)


def test_defaults_come_from_the_dataclasses():
    run = mf.load_run(tiny_text().replace('name = "tiny"\n', "").replace("chunk = 4\n", ""))
    fields = RunSpec.__dataclass_fields__
    assert run.name == fields["name"].default and run.chunk == fields["chunk"].default
    assert run.backend == fields["backend"].default
    bare = mf.load_run({"steps": 10, "transient": 0, "grid": {"beta_o": [1.0]}})
    from meanfield.sweeps.config.tables import ContinuationSpec, RecordSpec, ReductionSpec, StartSpec
    assert (bare.record, bare.reductions, bare.start) == (RecordSpec(), ReductionSpec(), StartSpec())
    chained = mf.load_run(tiny_text(extra="\n[continuation]\n"))
    assert chained.continuation == ContinuationSpec(axis="beta_o")


def test_a_stored_run_without_exponents_loads_back():
    from meanfield.sweeps.config.runfile import stored_run
    run = mf.load_run(tiny_text(lyapunov="false"))
    assert run.lyapunov == 0
    again = stored_run(json.loads(run.to_json()))
    assert again.result_key() == run.result_key()


def test_set_has_one_grammar():
    from meanfield.cli import parse_overrides
    got = parse_overrides(["a=41", "b=2.0", "c=1e3", "d=true", "e=[0.5, 1.0]", 'f="paper"', "g=paper", "h=-inf",
                           "grid.beta_o.num = 5"])
    assert got == {"a": 41, "b": 2.0, "c": 1000.0, "d": True, "e": [0.5, 1.0], "f": "paper", "g": "paper",
                   "h": -np.inf, "grid.beta_o.num": 5}
    assert type(got["a"]) is int and type(got["b"]) is float
    for bad in ("a", "=1", "a=[1,"):
        with pytest.raises(ConfigError, match="--set"):
            parse_overrides([bad])
