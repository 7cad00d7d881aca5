"""The CUDA kernel equals the CPU kernel: to 1e-12 in the CUDA simulator, within the CPU's own sensitivity to
rounding on a real GPU (helpers.spread_bound).

Run: ``NUMBA_ENABLE_CUDASIM=1 python -m pytest tests/cuda -m cudasim``. Each test stays under 1e5
thread-steps (points × steps): the simulator runs every thread in Python.
"""
import numpy as np
import pytest

import meanfield as mf

from .helpers import (
    BLOCK_SUMS_RTOL,
    SIMULATOR,
    TOL,
    assert_device_close,
    kernel_batch,
    moved,
    moved_state,
    random_model,
    random_start,
    spread_bound,
)

pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIMULATOR, reason="needs NUMBA_ENABLE_CUDASIM=1 (separate process)")]

OUTPUTS = ("records", "final", "depth", "block_sums", "ctrl", "stats")


def compare(batch, dtype="float64"):
    from meanfield.kernels import cpu, cuda
    expected = cpu.run_batch(batch)
    got = cuda.run_batch(batch, dtype=dtype)
    assert len(got) == len(expected)
    shifted = expected if SIMULATOR else cpu.run_batch(batch._replace(att0=moved(batch.att0)))
    for name, e, g, s in zip(OUTPUTS, expected, got, shifted):
        assert g.shape == e.shape, name
        assert g.dtype == e.dtype, name
        bound = TOL if SIMULATOR else spread_bound(e, s)
        if name == "block_sums" and not SIMULATOR:
            bound = bound + BLOCK_SUMS_RTOL * np.where(np.isfinite(e), np.abs(e), 0.0)
        assert_device_close(g, e, bound, name)
    return expected, got


@pytest.mark.parametrize("n_exponents", [0, 12])
def test_paper_config_matches_cpu(n_exponents):
    model = mf.presets.paper()
    beta = np.linspace(0.3, 3.0, 12)
    compare(kernel_batch(model, {"beta_o": beta}, None, steps=150, transient=20, n_exponents=n_exponents))


@pytest.mark.parametrize("n_exponents", [0, 5])
def test_m4_model_matches_cpu(n_exponents):
    model = random_model(seed=3)
    assert model.n_features == 4
    depth = 2 if n_exponents == 0 else model.context      # a partial window grows when no exponents are asked
    start = [random_start(model, seed, depth) for seed in range(6)]
    beta = np.linspace(0.8, 2.5, 6)
    _, got = compare(kernel_batch(model, {"beta_o": beta}, start, steps=120, transient=10,
                                 n_exponents=n_exponents, record_every=3, n_blocks=3, qr_every=2))
    assert np.all(got[2] == model.context)


@pytest.mark.parametrize("n_exponents", [0, 6])
def test_sigma_model_matches_cpu(n_exponents):
    """The sigma model (docs/model.md §10): rectified PE term, projected sign rows, m^{o,se} without w; from its
    one-row start (the window grows) and, for exponents, from a full window."""
    model = mf.presets.sigma(configuration="4_duplicity_loop_no_pe", epsilon=0.2, gamma=100.0)
    start = None if n_exponents == 0 else [mf.simulate(model, 8).final_state] * 4
    beta = np.linspace(0.4, 2.4, 4)
    compare(kernel_batch(model, {"beta_o": beta}, start, steps=100, transient=10, n_exponents=n_exponents))


def test_controlled_points_mixed_with_uncontrolled():
    """PID points have L·M + 2M tangent entries, the others L·M, in one launch."""
    model = mf.presets.paper()
    kp = np.array([0.0, 0.2, 0.0, 0.1])
    compare(kernel_batch(model, {"control.kp": kp, "control.ki": kp / 2}, None, steps=80, transient=10,
                        n_exponents=4))


def test_simulate_batch_backend_cuda_equals_cpu():
    model = mf.presets.paper()
    kw = dict(parameters={"beta_o": np.array([0.5, 1.266, 2.7])}, lyapunov=3, record=("att", "mo_se"))
    from meanfield.simulation import simulate_batch
    cpu = simulate_batch(model, 100, 20, **kw, compute=mf.Compute(backend="cpu"))
    gpu = simulate_batch(model, 100, 20, **kw, compute=mf.Compute(backend="cuda"))
    shifted = cpu if SIMULATOR else simulate_batch(model, 100, 20, start=moved_state(model.checkpoint), **kw)
    pairs = [(gpu.records[name], cpu.records[name], shifted.records[name], name) for name in kw["record"]]
    pairs += [(gpu.lyapunov, cpu.lyapunov, shifted.lyapunov, "lyapunov"),
              (gpu.final_att, cpu.final_att, shifted.final_att, "final_att")]
    for g, e, s, name in pairs:
        assert_device_close(g, e, TOL if SIMULATOR else spread_bound(e, s), name)
    np.testing.assert_array_equal(gpu.final_depth, cpu.final_depth)


def test_float32_runs_close_to_float64():
    from meanfield.kernels import cuda
    batch = kernel_batch(mf.presets.paper(), {"beta_o": np.array([0.5, 1.0])}, None, steps=30, transient=5,
                       n_exponents=2)
    r64 = cuda.run_batch(batch)
    r32 = cuda.run_batch(batch, dtype="float32")
    assert r32[0].dtype == np.float64 and r32[3].dtype == np.float64
    np.testing.assert_allclose(r32[0], r64[0], atol=1e-4)
    assert np.all(np.isfinite(r32[3]))
    assert not np.array_equal(r32[0], r64[0])          # it really ran in single precision


def test_kernel_factory_is_cached_per_shape():
    from meanfield.kernels.cuda import point_kernel
    assert point_kernel(4, 3, 4, 0, "float64") is point_kernel(4, 3, 4, 0, "float64")
    assert point_kernel(4, 3, 4, 2, "float64") is not point_kernel(4, 3, 4, 0, "float64")


def test_bad_dtype_is_a_backend_error():
    from meanfield.errors import BackendError
    from meanfield.kernels import cuda
    with pytest.raises(BackendError, match="dtype"):
        cuda.backend("float16")


def test_devices_listed(capsys):
    from meanfield.cli import main
    from meanfield.kernels.cuda import list_devices
    assert len(list_devices()) >= 1
    main(["info", "--devices"])
    assert "cuda:0" in capsys.readouterr().out
