"""Inputs that used to slip through or fail without naming the key: a string for a number, a 2-D parameter
array, a negative seed, ``--beta -inf`` on the command line, recorded series larger than the machine."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.cli import main


@pytest.mark.parametrize("make", [lambda: mf.presets.paper(gamma="127"),
                                  lambda: mf.load_run('steps = 10\ntransient = 0\n[model]\ngamma = "127"\n'
                                                      '[grid]\nbeta_o = [1.0]\n')],
                         ids=["preset", "run file"])
def test_a_string_is_not_a_number(make):
    with pytest.raises(mf.ConfigError, match="gamma = '127' is not allowed"):
        make()


def test_a_2d_parameter_array_is_refused_not_flattened():
    with pytest.raises(mf.ConfigError, match=r"beta_o: an array of shape \(2, 2\) is not allowed"):
        mf.simulate_batch(mf.presets.paper(), 10, parameters={"beta_o": np.ones((2, 2))})


@pytest.mark.parametrize("key, value", [("seed", -1), ("n_features", 0), ("semantic_bits", 0), ("pe_bits", -1)])
def test_random_preset_names_the_key(key, value):
    with pytest.raises(mf.ConfigError, match=f"{key} = {value} is not allowed"):
        mf.presets.random(**{"seed": 0, key: value})


@pytest.mark.parametrize("value", ["-inf", "-nan", "-1e400"])
def test_a_negative_non_number_after_an_option_is_its_value(value, tmp_path, capsys):
    out = tmp_path / "t.h5"
    assert main(["simulate", "--beta", value, "--steps", "10", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "beta_o" in err and "finite" in err
    assert not out.exists()


def test_recorded_series_larger_than_the_machine_are_refused():
    with pytest.raises(mf.ConfigError, match="GiB"):
        mf.simulate(mf.presets.paper(), 10 ** 12)           # 10^12 rows x 6 observables x 3 features x 8 B
