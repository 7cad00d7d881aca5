"""Start windows as arrays (meanfield.model.state.StartWindows, what a basin plane hands the kernel) run the same
bits as one State per start, and are checked like States."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.model.state import StartWindows
from meanfield.simulation import simulate_batch


def test_start_windows_run_the_same_bits_as_a_state_per_start():
    model = mf.presets.paper()
    rng = np.random.default_rng(3)
    att = rng.uniform(-1, 1, (6, 4, 3))
    pe = model.checkpoint.pe
    beta = {"beta_o": np.linspace(1.0, 2.8, 6)}
    as_arrays = simulate_batch(model, 300, 200, parameters=beta, start=StartWindows(att=att, pe=pe), lyapunov=2,
                               compute=mf.Compute(progress=False))
    as_states = simulate_batch(model, 300, 200, parameters=beta, start=[mf.State(att=a, pe=pe) for a in att],
                               lyapunov=2, compute=mf.Compute(progress=False))
    for name in ("att", "mo_se"):
        np.testing.assert_array_equal(as_arrays.records[name], as_states.records[name])
    np.testing.assert_array_equal(as_arrays.lyapunov, as_states.lyapunov)


@pytest.mark.parametrize("att, pe, word", [
    (np.full((2, 4, 3), np.nan), None, "finite"),
    (np.zeros((4, 3)), None, "(n, L, M)"),
    (np.zeros((2, 3, 3)), None, "full windows"),
    (np.zeros((2, 4, 3)), np.zeros((4, 2)), "+1 or -1"),
])
def test_bad_start_windows_are_refused(att, pe, word):
    model = mf.presets.paper()
    with pytest.raises(mf.ConfigError, match=word.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        start = StartWindows(att=att, pe=model.checkpoint.pe if pe is None else pe)
        simulate_batch(model, 10, parameters={"beta_o": np.ones(2)}, start=start, compute=mf.Compute(progress=False))


def test_a_list_of_starts_without_parameters_is_one_point_per_start():
    """n starts and no parameter array: n points of the model's own parameters, each what a run from that start
    alone gives (mf.simulate, bit for bit); a State list and StartWindows alike."""
    model = mf.presets.paper(beta_o=1.3)
    rng = np.random.default_rng(5)
    att, pe = rng.uniform(-1, 1, (5, 4, 3)), model.checkpoint.pe
    starts = [mf.State(att=a, pe=pe) for a in att]
    for start in (starts, StartWindows(att=att, pe=pe)):
        batch = simulate_batch(model, 400, 300, start=start, compute=mf.Compute(progress=False))
        assert batch.records["att"].shape == (5, 100, 3)
        for i, one in enumerate(starts):
            alone = mf.simulate(model, 400, 300, start=one, compute=mf.Compute(progress=False))
            np.testing.assert_array_equal(batch.records["att"][i], alone.att)
    with pytest.raises(mf.ConfigError, match="list of 1 States; got list of length 0"):
        simulate_batch(model, 10, start=[], compute=mf.Compute(progress=False))
