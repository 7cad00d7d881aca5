"""Bitwise-identical results whatever the batch composition, order and thread count (docs/model.md §3.3)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import meanfield as mf

BETAS = np.linspace(0.9, 2.6, 12)


def run(betas, lyapunov=3):
    return mf.simulate_batch(mf.presets.paper(), 700, 500, parameters={"beta_o": betas}, lyapunov=lyapunov,
                             record=("mo_se", "att"))


def test_batch_composition_and_order():
    whole = run(BETAS)
    order = np.random.default_rng(0).permutation(len(BETAS))
    shuffled = run(BETAS[order])
    halves = [run(BETAS[:5]), run(BETAS[5:])]
    for name in ("mo_se", "att"):
        np.testing.assert_array_equal(shuffled.records[name], whole.records[name][order])
        np.testing.assert_array_equal(np.concatenate([h.records[name] for h in halves]), whole.records[name])
    np.testing.assert_array_equal(shuffled.lyapunov, whole.lyapunov[order])
    np.testing.assert_array_equal(shuffled.final_att, whole.final_att[order])


SCRIPT = """
import json, numpy as np, meanfield as mf
r = mf.simulate_batch(mf.presets.paper(), 700, 500, parameters={"beta_o": np.linspace(0.9, 2.6, 12)},
                      lyapunov=3, record=("mo_se",))
print(json.dumps([r.records["mo_se"].tobytes().hex(), r.lyapunov.tobytes().hex()]))
"""


@pytest.mark.system
def test_thread_count_does_not_change_results():
    outputs = []
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads)
        done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
        outputs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert outputs[0] == outputs[1]
    here = run(BETAS)
    assert outputs[0][0] == here.records["mo_se"].tobytes().hex()
