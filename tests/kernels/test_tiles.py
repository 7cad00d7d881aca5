"""The CPU kernel's tiles of lanes (meanfield.kernels.cpu, docs/model.md §3.3): results do not depend on the tile
width, the padding or the thread count (bitwise); lane math moves results by rounding only; the compiled
step is vector code; two builds loaded from numba's cache into one process keep their own code."""
import json
import os
import subprocess
import sys
import textwrap

import llvmlite.binding as llvm
import numba
import numpy as np
import pytest

import meanfield as mf
from meanfield.kernels import cpu

from ..cuda.helpers import kernel_batch, random_model, random_start

OUTPUTS = ("records", "final_att", "final_depth", "block_sums", "final_ctrl", "stats")


def batches():
    """Uncontrolled points of the paper model with the full spectrum; PID points mixed with uncontrolled ones,
    two of them diverging; partial start windows of an M = 4 model; exponents of an M = 5 model with 13 sign
    classes (the run-time build's sums over features and classes four terms at a time and the rest one by one)."""
    paper = mf.presets.paper()
    gains = np.array([0.0, 0.2, 0.0, 0.1, 50.0, 0.0, 300.0])
    m4 = random_model(seed=3)
    m5 = random_model(seed=3, n_features=5, n_se=30, context=3)
    return {"spectrum": kernel_batch(paper, {"beta_o": np.linspace(0.05, 3.0, 13)}, None, steps=60, transient=10,
                                    n_exponents=12, n_blocks=3),
            "pid": kernel_batch(paper, {"control.kp": gains, "control.ki": gains / 2}, None, steps=60, transient=5,
                               n_exponents=4),
            "partial": kernel_batch(m4, {"beta_o": np.linspace(0.8, 2.5, 5)},
                                    [random_start(m4, s, 2) for s in range(5)], steps=30, transient=2, n_exponents=0,
                                    record_every=3),
            "blocks": kernel_batch(m5, {"beta_o": np.linspace(0.8, 2.5, 5),
                                        "control.kp": np.array([0.0, 0.0, 0.2, 0.0, 0.1])},
                                   [random_start(m5, s) for s in range(5)], steps=40, transient=5, n_exponents=9)}


@pytest.mark.parametrize("name", ["spectrum", "pid", "partial", "blocks"])
def test_tile_width_padding_and_threads_do_not_change_a_bit(name):
    # width 1 runs every lane through the compiled loops' scalar remainder, 7 pads, 48 is one padded tile
    batch = batches()[name]
    runs = [cpu.run_batch(batch, width=width) for width in (1, 7, 16, 48)]
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        runs.append(cpu.run_batch(batch))
    finally:
        numba.set_num_threads(threads)
    for other in runs[1:]:
        for label, a, b in zip(OUTPUTS, runs[0], other):
            assert np.array_equal(a, b, equal_nan=True), label
    if name == "pid":
        assert np.sum(runs[0][5][:, 1] >= 0) == 2                     # the two large gains diverged


def fixture_runs(data):
    """(model, start, steps) of every reference fixture: the one-step cases, the checkpoint trajectories at
    β_o = 0.5 and 2.5 and the token start at 1.266 (tests/data/README.md)."""
    cases = data("onestep_cases.npz")
    runs = [(mf.presets.paper(beta_o=float(cases[f"case{c}_beta"])),
             mf.State(cases[f"case{c}_A"], cases[f"case{c}_Pi"])) for c in range(7)]
    runs += [(mf.presets.paper(beta_o=b), mf.presets.paper().checkpoint) for b in (0.5, 2.5)]
    token = data("from_token_Wo0_beta_1.266.npz")
    model = mf.presets.paper(beta_o=1.266)
    return runs + [(model, mf.State.from_token(model, token["x0"]))]


def test_lane_math_moves_the_fixtures_by_rounding_only(data):
    # The libm build computes what the kernel computed before lane math (checked bitwise against it, records,
    # exponents, PID and divergence included, when lane math was introduced). exp, tanh and log differ from
    # the C library by 1-3 ulp per call; over 25 steps the map amplifies that to at most 8.9e-14 (one-step case
    # 0, the most expanding start). Exponents: the leading one only; the contracting directions saturate in
    # float64 (docs/model.md §4.3) and move by O(1) under any change of rounding.
    for model, start in fixture_runs(data):
        full = start.att.shape[0] == model.context
        batch = kernel_batch(model, {}, start, steps=25, transient=0, n_exponents=4 if full else 0, n_blocks=1)
        lane, libm = cpu.run_batch(batch), cpu.run_batch(batch, math_library="libm")
        for label in ("records", "final_att", "final_ctrl"):
            i = OUTPUTS.index(label)
            np.testing.assert_allclose(lane[i], libm[i], rtol=0, atol=1e-13, err_msg=label)
        np.testing.assert_array_equal(lane[2], libm[2])
        if full:
            np.testing.assert_allclose(lane[3][..., 0] / 25, libm[3][..., 0] / 25, rtol=0, atol=1e-13)


CHILD = textwrap.dedent("""
    import json, re, sys
    import numpy as np
    import meanfield as mf
    from meanfield.kernels import cpu
    from tests.cuda.helpers import kernel_batch
    batch = kernel_batch(mf.presets.paper(), {"beta_o": np.linspace(0.5, 2.5, 4)}, None, steps=12, transient=6,
                       n_exponents=12, n_blocks=1)
    out = {lib: cpu.run_batch(batch, math_library=lib)[0].tobytes().hex() for lib in sys.argv[1].split(",")}
    packed = {}
    for name in ("token_fields", "attend", "attention_gradient", "tangent_push", "orthonormalize_window"):
        f = getattr(cpu.tile_kernels(4, 3, 4).steps, name)
        if f.signatures:                       # compiled here, not loaded from the cache
            asm = f.inspect_asm(f.signatures[0])
            packed[name] = len(re.findall(r"\\bv(?:mul|add|sub)pd\\s+%[yz]mm", asm))
    print(json.dumps([out, packed]))
""")


def child(libraries, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-c", CHILD, libraries], env=env, capture_output=True, text=True,
                          check=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.system
def test_step_is_vector_code_and_cached_builds_keep_their_code(tmp_path):
    lane, packed = child("lane", tmp_path)
    libm, _ = child("libm", tmp_path)
    both, _ = child("lane,libm", tmp_path)          # both loaded from the cache into one process
    assert both == {**lane, **libm}
    assert lane["lane"] != libm["libm"]
    if "avx2" in llvm.get_host_cpu_features().flatten():
        assert all(count > 0 for count in packed.values()), packed
        assert len(packed) == 5
