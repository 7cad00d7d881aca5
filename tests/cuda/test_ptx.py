"""The CUDA kernels compile for a real GPU (sm_90 PTX through NVVM), without a GPU.

The simulator runs kernels as Python and accepts code a real GPU rejects (runtime
local-array shapes, zero-sized local arrays, untyped constructs). This test compiles the batch kernel
(float64/float32, with and without exponents) and the reduction kernel to PTX with numba's real CUDA
compiler, which only needs libNVVM and libdevice (a CUDA toolkit, e.g. /usr/local/cuda); it is skipped where
they are missing. It patches the three places where numba asks a live device for its compute capability or
NVRTC for an arch name. Main (non-simulator) process only.
"""
import os
import types

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.system,     # numba-cuda's NVVM() probes libNVVM in a child python
              pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", reason="needs the real compiler")]


@pytest.fixture
def offline_compiler(monkeypatch):
    try:
        import numba.cuda.compiler as compiler
        import numba.cuda.cuda_paths as paths
        import numba.cuda.cudadrv.nvrtc as nvrtc
        import numba.cuda.dispatcher as dispatcher
        from numba import cuda
        from numba import types as nt
        from numba.cuda.cudadrv import libs, nvvm
    except ImportError as exc:
        pytest.skip(f"numba-cuda internals not found ({exc})")
    fake = (lambda: types.SimpleNamespace(compute_capability=(9, 0)))
    monkeypatch.setattr(dispatcher, "get_current_device", fake)
    monkeypatch.setattr(compiler, "get_current_device", fake)
    monkeypatch.setattr(nvrtc, "get_arch_option", lambda major, minor: f"compute_{major}{minor}")
    monkeypatch.setattr(paths, "_get_nvrtc_path", lambda: paths._env_path_tuple("unused", None))
    monkeypatch.delattr(paths.get_cuda_paths, "_cached_result", raising=False)
    try:
        nvvm.NVVM()
        assert os.path.exists(libs.get_libdevice())
    except Exception as exc:  # noqa: BLE001 - no toolkit here
        pytest.skip(f"libNVVM/libdevice not available ({exc})")
    from meanfield.kernels import cuda as backend
    monkeypatch.setattr(backend.cuda, "is_available", lambda: True)
    yield cuda, nt
    backend._steps.cache_clear()
    monkeypatch.delattr(paths.get_cuda_paths, "_cached_result", raising=False)


def array(nt, dtype, ndim):
    return nt.Array(dtype, ndim, "C")


@pytest.mark.parametrize("dtype,n_exponents", [("float64", 0), ("float32", 12)])
def test_batch_kernel_compiles_to_ptx(offline_compiler, dtype, n_exponents):
    cuda, nt = offline_compiler
    from meanfield.kernels.cuda import point_kernel
    from meanfield.model.layout import BatchShared, TileInput, TileOutput
    dt, i64 = getattr(nt, dtype), nt.int64
    kernel = point_kernel.__wrapped__(4, 3, 4, n_exponents, dtype)     # not cached: a GPU-less process
    shared = nt.NamedTuple([array(nt, dt, 3), array(nt, dt, 2), array(nt, dt, 3), i64, i64, i64, array(nt, i64, 1),
                            i64, array(nt, i64, 1)], BatchShared)
    points = nt.NamedTuple([array(nt, dt, 2), array(nt, dt, 3), array(nt, dt, 3), array(nt, i64, 1),
                            array(nt, dt, 3), array(nt, nt.boolean, 1)], TileInput)
    out = nt.NamedTuple([array(nt, dt, 4), array(nt, nt.float64, 3), array(nt, dt, 2), array(nt, dt, 3),
                         array(nt, i64, 1), array(nt, dt, 3)], TileOutput)
    ptx, _ = cuda.compile_ptx(kernel.py_func, (shared, points, out), cc=(9, 0))
    assert ".entry" in ptx and "__local_depot" in ptx


def test_reduction_kernel_compiles_to_ptx(offline_compiler):
    cuda, nt = offline_compiler
    from meanfield.kernels import cuda_reductions
    kernel = cuda_reductions._reduce_kernel()
    cuda_reductions._kernels.clear()
    f8, i8, u4, i4 = nt.float64, nt.int64, nt.uint32, nt.int32
    settings = nt.NamedTuple([i8, f8, f8, f8, i8, f8, nt.Array(i8, 2, "C"), f8], cuda_reductions.ReduceSettings)
    out = nt.NamedTuple([nt.Array(u4, 3, "C"), nt.Array(i4, 2, "C"), nt.Array(f8, 3, "C"), nt.Array(i8, 2, "C"),
                         nt.Array(i4, 2, "C")], cuda_reductions.Reductions)
    sig = (nt.Array(f8, 4, "A"), settings, nt.Array(u4, 2, "C"), out, nt.Array(i4, 1, "C"))
    ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))
    assert ".entry" in ptx
