"""Without a GPU, backend = "cuda" is one clear BackendError and the CPU path still works.

Runs in the MAIN test process (no cudasim marker, no simulator): the missing GPU is this machine's real
state, and is also forced by patching so the test means the same on a machine with a GPU.
"""
import numpy as np
import pytest

import meanfield as mf
from meanfield.errors import BackendError
from meanfield.simulation import simulate_batch


@pytest.fixture
def no_gpu(monkeypatch):
    from meanfield.kernels import cuda
    monkeypatch.setattr(cuda, "simulator_enabled", lambda: False)
    if cuda.cuda is not None:
        monkeypatch.setattr(cuda.cuda, "is_available", lambda: False)
    return cuda


def test_backend_cuda_without_gpu_is_a_clear_error(no_gpu):
    model = mf.presets.paper()
    with pytest.raises(BackendError, match="no CUDA GPU or driver was found.*backend = 'cpu'"):
        simulate_batch(model, 10, compute=mf.Compute(backend="cuda"))
    with pytest.raises(BackendError):
        simulate_batch(model, 10, compute=mf.Compute(backend="cuda:float32"))
    assert no_gpu.point_kernel.cache_info().currsize == 0     # nothing was compiled
    result = simulate_batch(model, 10, compute=mf.Compute(backend="cpu"))      # the CPU path still works
    assert np.all(np.isfinite(result.records["att"]))


def test_missing_numba_cuda_is_a_clear_error(monkeypatch):
    from meanfield.kernels import cuda
    monkeypatch.setattr(cuda, "cuda", None)
    with pytest.raises(BackendError, match="numba-cuda"):
        simulate_batch(mf.presets.paper(), 10, compute=mf.Compute(backend="cuda"))


def test_this_machine_without_gpu():
    from meanfield.kernels import cuda
    if cuda.simulator_enabled() or (cuda.cuda is not None and cuda.cuda.is_available()):
        pytest.skip("a GPU (or the simulator) is available here")
    with pytest.raises(BackendError, match="not available"):
        simulate_batch(mf.presets.paper(), 10, compute=mf.Compute(backend="cuda"))


def test_unknown_backend_is_a_config_error():
    from meanfield.errors import ConfigError
    with pytest.raises(ConfigError, match="cuda"):
        simulate_batch(mf.presets.paper(), 10, compute=mf.Compute(backend="tpu"))


def test_info_devices_without_gpu(no_gpu, capsys):
    from meanfield.cli import main
    main(["info", "--devices"])
    out = capsys.readouterr().out
    assert "cpu:" in out and "cuda: none" in out


def test_gpu_worker_env(monkeypatch):
    from meanfield.kernels.cuda import gpu_worker_env
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert gpu_worker_env(1) == {"CUDA_VISIBLE_DEVICES": "1"}
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    assert gpu_worker_env(1) == {"CUDA_VISIBLE_DEVICES": "3"}
    with pytest.raises(BackendError):
        gpu_worker_env(2)


def test_float32_check_helpers():
    from meanfield.studies.precision import divergence_steps, sample_points
    assert list(sample_points(3, 16)) == [0, 1, 2]
    assert list(sample_points(101, 3)) == [0, 50, 100]
    x = np.zeros((3, 5, 2))
    y = x.copy()
    y[0, 3, 1] = 1e-2
    y[1, 0, 0] = np.nan
    assert list(divergence_steps(x, y, 1e-3)) == [3, 0, -1]


@pytest.mark.parametrize("ring, n_feat, n_patterns, n_vec", [(4, 3, 4, 12), (4, 3, 4, 0), (16, 64, 128, 0),
                                                             (16, 64, 128, 8)])
def test_local_bytes_counts_the_allocated_arrays(ring, n_feat, n_patterns, n_vec):
    """The per-thread memory that the launch check counts is what the shared allocator makes for one lane (numpy
    arrays here, local arrays on a GPU) plus the kernel's own window, control rows and depth."""
    from meanfield.kernels.cuda import jacobian_sizes, local_bytes
    from meanfield.kernels.tile_stages import scratch_stage
    from meanfield.model.layout import CTRL_ROWS

    n_entries = (ring + 2) * n_feat
    scratch = scratch_stage().scratch_allocator(np.empty, np.float64, lambda f: f)(
        1, max(n_vec, 1), ring, n_feat, n_patterns, n_entries, n_entries + 1, 1, *jacobian_sizes(ring, n_feat, n_vec))
    own = np.empty((ring, n_feat)).nbytes + np.empty((CTRL_ROWS, n_feat)).nbytes + 8
    assert local_bytes(ring, n_feat, n_patterns, n_vec, "float64") == sum(a.nbytes for a in scratch) + own


def test_launch_too_big_for_a_gpu_thread_is_refused():
    """Exponents at M = 64, L = 16 need the (L, M, M) token Jacobians: 1.6 MiB a point, past a GPU thread's 512 KiB
    (the device's launch failed with CUDA_ERROR_INVALID_VALUE); without exponents the same model fits."""
    from meanfield.kernels.cuda import check_local_memory

    check_local_memory(16, 64, 128, 0, "float64")
    with pytest.raises(BackendError, match=r"M = 64, L = 16 with 8 exponents needs 1\d{3} KiB.*512 KiB"):
        check_local_memory(16, 64, 128, 8, "float64")
