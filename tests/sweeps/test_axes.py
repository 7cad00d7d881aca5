"""Every axis a run file may sweep (``AXIS_NAMES``) sweeps from a run file and, for the scalar parameters,
from ``simulate_batch``: each point equals ``simulate`` of the model with that one value set, and the two
values give different orbits. The ``seed`` axis builds one model per seed (a preset knob, not a batch
parameter)."""
from __future__ import annotations

import numpy as np
import pytest

import meanfield as mf
from meanfield.model.state import State
from meanfield.sweeps.config.tables import AXIS_NAMES, MODEL_AXES
from meanfield.sweeps.execute.tasks import compute_chunk

#: Two allowed values per axis, far enough apart to change the orbit of the paper model at β_o = 1.3 (with
#: the PID gain K_I = 0.1, so that the controller's ρ, κ and I_max matter).
VALUES = {"beta_o": (0.8, 1.3), "beta_att": (2.0, 2.4), "scaling_att": (90.0, 110.0), "scaling_o": (0.9, 1.1),
          "epsilon": (0.01, 0.05), "gamma": (100.0, 140.0), "control.kp": (0.1, 0.3), "control.ki": (0.05, 0.2),
          "control.kd": (0.05, 0.2), "control.rho": (0.5, 0.9), "control.kappa": (0.5, 0.9),
          "control.i_max": (0.001, 1.0), "seed": (1, 2)}
STEPS, TRANSIENT = 300, 100
RUN = """
name = "axis"
steps = {steps}
transient = {transient}

[model]
preset = "paper"
beta_o = 1.3
control = {{ ki = 0.1 }}

[grid]
"{name}" = [{values}]

[record]
observables = ["mo_se"]
tail = {tail}
"""


def test_every_axis_is_covered():
    assert sorted(VALUES) == sorted(AXIS_NAMES)


@pytest.mark.parametrize("name", [n for n in AXIS_NAMES if n not in MODEL_AXES])
def test_axis_sweeps_from_run_files_and_the_api(name):
    values = VALUES[name]
    run = mf.load_run(RUN.format(steps=STEPS, transient=TRANSIENT, name=name, values=", ".join(map(str, values)),
                                 tail=STEPS - TRANSIENT))
    swept = compute_chunk(run, np.arange(2), np.full(2, -1))["tail_mo_se"]
    model = mf.presets.paper(beta_o=1.3, **{"control.ki": 0.1})
    batch = mf.simulate_batch(model, STEPS, TRANSIENT, parameters={name: np.array(values)}, record=("mo_se",))
    singles = [mf.simulate(model.replace(**{name: v}), STEPS, TRANSIENT, record=("mo_se",)).mo_se for v in values]
    for i, single in enumerate(singles):
        np.testing.assert_array_equal(swept[i], single)
        np.testing.assert_array_equal(batch.records["mo_se"][i], single)
    assert not np.array_equal(singles[0], singles[1]), f"{name} = {values} does not change the orbit"


def test_seed_axis_sweeps_from_run_files():
    """Random weights per seed, each started from its token W^o[0] with PE bits reset (the [start] defaults)."""
    text = RUN.format(steps=STEPS, transient=TRANSIENT, name="seed", values="1, 2", tail=STEPS - TRANSIENT)
    text = text.replace('preset = "paper"', 'preset = "random"') + '\n[start]\nkind = "token"\n'
    swept = compute_chunk(mf.load_run(text), np.arange(2), np.full(2, -1))["tail_mo_se"]
    singles = []
    for i, seed in enumerate(VALUES["seed"]):
        model = mf.presets.random(seed=seed, beta_o=1.3, **{"control.ki": 0.1})
        start = State.from_pattern(model, 0, "o", reset_pe=True)
        singles.append(mf.simulate(model, STEPS, TRANSIENT, start=start, record=("mo_se",)).mo_se)
        np.testing.assert_array_equal(swept[i], singles[-1])
    assert not np.array_equal(*singles)
