"""Runs that skip the steps of exact cycles (meanfield/systems/exact_cycles.py): the census's runs give the plain
kernel run's records and final states bit for bit, and where the starts cycle exactly they run fewer steps."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.model import Control
from meanfield.model.state import State
from meanfield.simulation import simulate_batch
from meanfield.systems import AttentionSystem, exact_cycles
from meanfield.systems.starts import sample

STEPS, TRANSIENT, STARTS = 20_000, 19_000, 32


def plain(model, starts, series):
    """The run without skipping: one simulate_batch call (the oracle)."""
    values = {"beta_o": np.full(len(starts), model.beta_o)}
    return simulate_batch(model, STEPS, TRANSIENT, parameters=values, start=starts,
                          record=("att", "mo_se") if series else ("att",), compute=mf.Compute(progress=False))


@pytest.fixture
def counted(monkeypatch):
    """The lane-steps that the census's runs hand the kernel."""
    seen = []

    def counting(model, steps, *args, **kwargs):
        result = simulate_batch(model, steps, *args, **kwargs)
        seen.append(steps * result.final_att.shape[0])
        return result
    monkeypatch.setattr(exact_cycles, "simulate_batch", counting)
    return seen


# 0.5: the rest cycle, reached exactly within a few hundred steps; 2.8: the period-24 cycles; 1.3: no exact cycle
@pytest.mark.parametrize("beta, skipped", [(0.5, True), (2.8, True), (1.3, False)])
@pytest.mark.parametrize("series", [False, True])
def test_the_run_is_the_plain_run_bit_for_bit(counted, beta, skipped, series):
    model = mf.presets.paper(beta_o=beta)
    starts = sample(model, STARTS, "uniform", seed=3)
    run, reference = AttentionSystem(model).run(starts, STEPS, TRANSIENT, series=series), plain(model, starts, series)
    assert np.array_equal(run.states, reference.records["att"])
    assert series is False or np.array_equal(run.series, reference.records["mo_se"])
    for i in range(STARTS):
        assert np.array_equal(run.final_state(i).att, reference.final_state(i).att)
        assert np.array_equal(run.final_state(i).pe, reference.final_state(i).pe)
    share = sum(counted) / (STEPS * STARTS)
    assert (share < 0.2) if skipped else (share >= 1.0)


def test_the_shortest_exact_period_that_is_a_multiple_of_the_forcing():
    rng = np.random.default_rng(0)
    cycle6, cycle8 = rng.normal(size=(6, 2)), rng.normal(size=(8, 2))
    rows = np.stack([np.tile(cycle6, (50, 1))[:270], np.tile(cycle8, (40, 1))[:270], rng.normal(size=(270, 2))])
    assert exact_cycles._exact_periods(rows, 4, 4).tolist() == [12, 8, 0]
    assert exact_cycles._exact_periods(rows, 4, 1).tolist() == [6, 8, 0]
    rows[0, -1, 0] = np.nextafter(rows[0, -1, 0], 1.0)       # one ulp off in the last window: not exact
    assert exact_cycles._exact_periods(rows, 4, 4)[0] == 0


def test_runs_that_cannot_skip_run_as_they_are():
    model = mf.presets.paper(beta_o=0.5)
    starts = sample(model, 4, "uniform", seed=0)
    values = {"beta_o": np.full(4, 0.5)}
    assert exact_cycles.skips_cycles(model, starts, TRANSIENT, values, False, "cpu")
    assert not exact_cycles.skips_cycles(model, starts, TRANSIENT, values, True, "cpu")          # exponents
    assert not exact_cycles.skips_cycles(model, starts, TRANSIENT, values, False, "cuda")         # a GPU
    assert not exact_cycles.skips_cycles(model, starts, 500, values, False, "cpu")                # too short
    assert not exact_cycles.skips_cycles(model.replace(control=Control(kp=0.1)), starts, TRANSIENT, values,
                                         False, "cpu")                                           # PID control
    shifted = starts[:3] + [State(att=starts[3].att, pe=np.roll(starts[3].pe, 1, axis=0))]
    assert not exact_cycles.skips_cycles(model, shifted, TRANSIENT, values, False, "cpu")         # PE phases differ
