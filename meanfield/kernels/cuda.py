"""CUDA backend: the shared step functions of :mod:`.step` compiled as numba.cuda device functions, one
thread per parameter point (docs/model.md §3.3).

There is one definition of the model: :func:`meanfield.kernels.step.build_steps` is called with
``cuda.jit(device=True)`` and the kernel here only allocates per-thread scratch (``cuda.local.array`` through
the shared allocator ``new_scratch``, sized at compile time by a kernel factory keyed by (L, M, J, k, dtype)) and
calls ``run_tile`` with a tile of one lane: every per-point array has a last axis of length 1 (docs/model.md §3,
§4). In float64 the map uses the CPU's exp, tanh and log (:mod:`.lane_math`), so both backends compute the same
arithmetic; float32 uses the device's own.

Device layout: arrays a thread writes have the point on the LAST axis (records (rows, n_sel, M, n), block
sums (B, k, n), windows (L, M, n)) so that neighbouring threads touch neighbouring addresses (coalesced);
``run_tile`` receives the one-point slices ``[..., i:i + 1]``, which have the lane layout. :func:`run_batch` is
called like the CPU kernel, ``run_batch(batch) -> BatchOutput`` (:mod:`meanfield.model.layout`), host arrays in
the CPU layout; :func:`run_batch_device` keeps everything on the device for the on-device reductions of
:mod:`.cuda_reductions`.

Availability is checked before anything is compiled: without numba-cuda, a driver or a GPU (and outside the
simulator, ``NUMBA_ENABLE_CUDASIM=1``) :func:`require_cuda` raises :class:`~meanfield.errors.BackendError`.
"""
from __future__ import annotations

import functools
import os

import numpy as np

from ..errors import BackendError
from ..model.layout import CTRL_ROWS, CTRL_STATE_ROWS, Batch, BatchOutput, BatchShared, TileInput, TileOutput
from ..model.layout import controlled as is_controlled

try:  # module-level name: the simulator swaps the global ``cuda`` of kernels for its fake module
    from numba import cuda
except ImportError:  # pragma: no cover - the GPU extra is not installed
    cuda = None

#: Threads per block; run_tile keeps windows and tangent vectors in local memory, so blocks stay small.
THREADS_PER_BLOCK = 128
#: Dtypes a batch can run in (float64 by default, float32 only where asked).
DTYPES = ("float64", "float32")
#: The most local memory a CUDA thread may use (512 KiB on every compute capability numba-cuda supports).
LOCAL_BYTES_LIMIT = 512 * 1024


def jacobian_sizes(ring: int, n_feat: int, n_vec: int) -> tuple[int, int]:
    """Rows and features of the token Jacobians' scratch: (L, M) with exponents, (1, 1) without (unread)."""
    return (ring, n_feat) if n_vec > 0 else (1, 1)


def local_bytes(ring: int, n_feat: int, n_patterns: int, n_vec: int, dtype: str) -> int:
    """Bytes of per-thread local memory :func:`point_kernel` allocates: the window, control rows and depth, and
    the scratch of ``new_scratch`` (:class:`~meanfield.model.layout.TileScratch`) for one lane."""
    L, M, n_entries = ring, n_feat, (ring + 2) * n_feat
    jac_rows, jac_feat = jacobian_sizes(ring, n_feat, n_vec)
    values = (L * M + CTRL_ROWS * M                                       # window and control rows
              + 4 * L * M + n_patterns + 4 * M + M + 2 * L * M + L + M   # fields, rings, weights, new output
              + (3 * jac_rows + 1) * jac_feat * jac_feat                   # token Jacobians, window gradient
              + max(n_vec, 1) * (n_entries + M) + 2 + 1 + n_entries + 1 + 1  # tangents, new rows, softmax, QR
              + 2 * n_patterns + 4 * M)                                     # the tangent images' scratch
    return values * np.dtype(dtype).itemsize + 8                          # + the depth (int64)


def simulator_enabled() -> bool:
    """True when numba runs CUDA code in its pure-Python simulator (``NUMBA_ENABLE_CUDASIM=1``)."""
    try:
        from numba import config
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    return bool(getattr(config, "ENABLE_CUDASIM", False))


def require_cuda():
    """Return ``numba.cuda`` if kernels can run (a GPU, or the simulator); else raise BackendError.

    Called before any compilation, so a missing GPU is one clear message, not a traceback from numba.
    """
    if cuda is None:
        raise BackendError("backend = 'cuda' needs numba-cuda: install the GPU extra (pip install "
                           "'meanfield[gpu]'), or use backend = 'cpu'")
    if simulator_enabled():
        return cuda
    try:
        available = cuda.is_available()
    except Exception as exc:  # noqa: BLE001 - a broken driver shows up in many ways
        raise BackendError(f"backend = 'cuda': the CUDA driver failed to initialise ({exc}); use backend = "
                           f"'cpu'") from None
    if not available:
        raise BackendError("backend = 'cuda' is not available: no CUDA GPU or driver was found on this machine "
                           "(numba.cuda.is_available() is False; check `nvidia-smi` and CUDA_VISIBLE_DEVICES). "
                           "Use backend = 'cpu', or `meanfield info --devices` to list devices")
    return cuda


def cupy_module():
    """CuPy when it is installed and usable with a real GPU (never in the simulator); else None."""
    if simulator_enabled():
        return None
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - not installed, or no device
        return None
    return cupy


def list_devices() -> list[dict]:
    """Visible CUDA devices as dicts (id, name, compute capability, total memory in GiB where known).

    Raises BackendError when CUDA is unavailable (see :func:`require_cuda`).
    """
    require_cuda()
    out = []
    for dev in cuda.list_devices():
        entry = {"id": int(getattr(dev, "id", len(out))),
                 "name": _text(getattr(dev, "name", "CUDA simulator" if simulator_enabled() else "unknown")),
                 "compute_capability": tuple(getattr(dev, "compute_capability", ()))}
        try:
            with dev:
                total = float(cuda.current_context().get_memory_info()[1])
            if np.isfinite(total):
                entry["memory_gib"] = round(total / 2 ** 30, 1)
        except Exception:  # noqa: BLE001 - memory is informative only
            pass
        out.append(entry)
    return out


def device_name() -> str:
    """Name of the current device ("CUDA simulator" in the simulator)."""
    require_cuda()
    return _text(getattr(cuda.get_current_device(), "name", "CUDA simulator"))


def _text(name) -> str:
    return name.decode() if isinstance(name, bytes) else str(name)


def gpu_worker_env(i: int) -> dict:
    """Environment for a worker pinned to GPU ``i``: ``CUDA_VISIBLE_DEVICES`` set to that one device.

    ``i`` counts the devices visible to this process, so a parent restricted to ``CUDA_VISIBLE_DEVICES=2,3``
    gives worker 0 device 2 and worker 1 device 3. Must reach the worker before it initialises CUDA.
    """
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [v.strip() for v in visible.split(",") if v.strip()] if visible else None
    if ids is not None and not 0 <= i < len(ids):
        raise BackendError(f"GPU worker {i}: only {len(ids)} devices are visible (CUDA_VISIBLE_DEVICES={visible})")
    return {"CUDA_VISIBLE_DEVICES": ids[i] if ids is not None else str(int(i))}


@functools.cache
def _steps(ring: int, n_feat: int, n_patterns: int, dtype: str):
    """The model's step functions (:class:`~meanfield.kernels.step.Steps`) as CUDA device functions (built once per
    shape, compiled on first launch)."""
    import math

    from .step import build_steps
    device = require_cuda().jit(device=True)
    transcendentals = None
    if dtype == "float32":
        transcendentals = (device(lambda x: math.exp(x)), device(lambda x: math.tanh(x)),
                           device(lambda x: math.log(x)))
    return build_steps(device, ring, n_feat, n_patterns, transcendentals=transcendentals)


@functools.cache
def point_kernel(ring: int, n_feat: int, n_patterns: int, n_vec: int, dtype: str):
    """The batch kernel for windows of L = ``ring`` rows of M = ``n_feat`` features, J sign patterns and
    k = ``n_vec`` tangent vectors, computing in ``dtype`` (scratch sizes are compile-time constants).

    Launch as ``kernel[blocks, threads](shared, points, out)`` with the records of
    :mod:`meanfield.model.layout` over all n points, the point on the last axis: ``shared`` a
    :class:`~meanfield.model.layout.BatchShared`; ``points`` a :class:`~meanfield.model.layout.TileInput`
    (``params`` (K, n), ``pe0`` (L, P, n), the start ``att`` (L, M, n), ``depth`` (n,), ``ctrl`` (3, M, n) and
    ``controlled`` (n,)); ``out`` a :class:`~meanfield.model.layout.TileOutput` whose ``final_att``,
    ``final_depth`` and ``final_ctrl`` may be the arrays of ``points`` (the state is read before it is written).
    """
    require_cuda()
    import numba

    steps = _steps(ring, n_feat, n_patterns, dtype)
    run_tile, dt = steps.run_tile, getattr(numba, dtype)
    local_array = cuda.jit(device=True, inline="always")(lambda shape, dtype: cuda.local.array(shape, dtype))
    new_scratch = steps.scratch_allocator(local_array, dt, cuda.jit(device=True, inline="always"))
    # closure constants: local array shapes must be literal
    vectors, n_entries = max(n_vec, 1), (ring + 2) * n_feat
    qr_rows = n_entries + 1
    jac_rows, jac_feat = jacobian_sizes(ring, n_feat, n_vec)

    @cuda.jit
    def kernel(shared, points, out):
        i = cuda.grid(1)
        if i < points.depth.shape[0]:
            att_ring = cuda.local.array((ring, n_feat, 1), dt)
            ctrl = cuda.local.array((CTRL_ROWS, n_feat, 1), dt)
            depth = cuda.local.array(1, numba.int64)
            for a in range(n_feat):
                for d in range(ring):
                    att_ring[d, a, 0] = points.att[d, a, i]
                for r in range(CTRL_ROWS):
                    ctrl[r, a, 0] = points.ctrl[r, a, i] if r < CTRL_STATE_ROWS else 0.0
            depth[0] = points.depth[i]
            tile = TileInput(points.params[:, i:i + 1], points.pe0[:, :, i:i + 1], att_ring, depth, ctrl,
                             points.controlled[i])
            run_tile(shared, tile, new_scratch(1, vectors, ring, n_feat, n_patterns, n_entries, qr_rows, 1, jac_rows,
                                                 jac_feat),
                     TileOutput(out.records[:, :, :, i:i + 1], out.block_sums[:, :, i:i + 1], out.stats[:, i:i + 1],
                                out.final_att[:, :, i:i + 1], out.final_depth[i:i + 1], out.final_ctrl[:, :, i:i + 1]))

    return kernel


def check_local_memory(ring: int, n_feat: int, n_patterns: int, n_vec: int, dtype: str) -> None:
    """BackendError (before compiling) when one point's local memory (:func:`local_bytes`) passes the device's
    per-thread limit: the token Jacobians of the tangent map grow as L·M², so exponents at M = 64, L = 16 run
    only on the CPU."""
    need = local_bytes(ring, n_feat, n_patterns, n_vec, dtype)
    if need > LOCAL_BYTES_LIMIT:
        raise BackendError(f"backend = 'cuda': M = {n_feat}, L = {ring} with {n_vec} exponents needs {need / 1024:.0f} "
                           f"KiB of memory per point, a GPU thread has at most {LOCAL_BYTES_LIMIT // 1024} KiB; "
                           "use backend = 'cpu' (or no exponents)")


def check_dtype(dtype) -> str:
    """Normalise ``dtype`` to "float64" or "float32"; BackendError otherwise (before compiling)."""
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if name not in DTYPES:
        raise BackendError(f"dtype = {dtype!r} is not allowed: choose one of {list(DTYPES)}")
    return name


def to_device(array):
    """Copy a host array to the device (CuPy when usable, else a numba device array)."""
    cupy = cupy_module()
    array = np.ascontiguousarray(array)
    return cupy.asarray(array) if cupy is not None else require_cuda().to_device(array)


def device_zeros(shape, dtype):
    """A zero-filled device array (CuPy when usable, else numba)."""
    cupy = cupy_module()
    if cupy is not None:
        return cupy.zeros(shape, dtype=dtype)
    return require_cuda().to_device(np.zeros(shape, dtype=dtype))


def to_host(array) -> np.ndarray:
    """Copy a device (CuPy or numba) array to a host numpy array; host arrays pass through."""
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "copy_to_host"):
        return array.copy_to_host()
    return array.get()


def run_batch_device(batch: Batch, dtype="float64") -> TileOutput:
    """Run a :class:`~meanfield.model.layout.Batch` on the device and leave the results there.

    Returns a :class:`~meanfield.model.layout.TileOutput` of device arrays in the point-last layout:
    ``records`` (rows, n_sel, M, n) in ``dtype``, ``block_sums`` (B, k, n) float64 (log-norm sums stay in
    float64 whatever ``dtype``, so long runs do not lose the exponents to accumulation error), ``stats`` (2, n),
    ``final_att`` (L, M, n) final windows, ``final_depth`` (n,) and ``final_ctrl`` (3, M, n).
    """
    require_cuda()
    dtype = check_dtype(dtype)
    n_points, ring, n_feat = batch.att0.shape
    check_local_memory(ring, n_feat, batch.signs.shape[0], int(batch.n_exponents), dtype)
    cast = (lambda a: to_device(np.asarray(a, dtype=dtype)))
    params = np.asarray(batch.params, dtype=dtype)
    points = TileInput(to_device(np.transpose(params)), cast(np.moveaxis(batch.pe0, 0, -1)),
                       cast(np.moveaxis(batch.att0, 0, -1)), to_device(np.asarray(batch.depth0, dtype=np.int64)),
                       cast(np.moveaxis(batch.ctrl0, 0, -1)), to_device(is_controlled(params)))
    out = TileOutput(device_zeros((batch.n_rows, len(batch.selection), n_feat, n_points), dtype),
                     device_zeros((batch.n_blocks, batch.n_exponents, n_points), np.float64),
                     device_zeros((2, n_points), dtype), points.att, points.depth, points.ctrl)
    if n_points:
        shared = BatchShared(cast(batch.coef), cast(batch.signs), cast(batch.w_pe), int(batch.steps),
                             int(batch.transient), int(batch.record_every),
                             to_device(np.asarray(batch.selection, dtype=np.int64)), int(batch.qr_every),
                             device_zeros(1, np.int64))      # the host cannot read it while the kernel runs
        kernel = point_kernel(ring, n_feat, batch.signs.shape[0], int(batch.n_exponents), dtype)
        # numba's simulator runs a block's threads as Python threads that take a lock at every device-function
        # call; a block of one thread runs them one after the other (a point never reads another's lane).
        threads = 1 if simulator_enabled() else THREADS_PER_BLOCK
        try:
            kernel[(n_points + threads - 1) // threads, threads](shared, points, out)
            cuda.synchronize()
        except Exception as exc:
            if type(exc).__module__.startswith(("numba.cuda.cudadrv", "numba_cuda", "cupy", "cuda.")):
                raise BackendError(f"backend = 'cuda': the kernel failed on the device ({exc})") from exc
            raise
    return out


def run_batch(batch: Batch, dtype="float64") -> BatchOutput:
    """Iterate every point of a :class:`~meanfield.model.layout.Batch` on the GPU; returns the CPU kernel's
    :class:`~meanfield.model.layout.BatchOutput` (float64 host arrays). ``dtype`` = "float32" computes in single
    precision (its cost in accuracy: :func:`meanfield.studies.precision.precision_check`).
    """
    out = run_batch_device(batch, dtype)
    return host_results(out, out.records)


def host_results(out: TileOutput, records) -> BatchOutput:
    """The CPU kernel's :class:`~meanfield.model.layout.BatchOutput` from :func:`run_batch_device` output, with
    ``records`` (all or some rows of ``out.records``): float64 host arrays, point axis first."""
    last_first = (lambda a: np.ascontiguousarray(np.moveaxis(to_host(a), -1, 0), dtype=np.float64))
    return BatchOutput(last_first(records), last_first(out.final_att), to_host(out.final_depth).astype(np.int64),
                       last_first(out.block_sums), last_first(out.final_ctrl), last_first(out.stats))


def backend(dtype="float64"):
    """The CUDA ``run_batch`` (``kernel(batch) -> output``) for :func:`meanfield.simulation.simulate_batch`, after
    checking CUDA is usable."""
    require_cuda()
    dtype = check_dtype(dtype)
    return run_batch if dtype == "float64" else functools.partial(run_batch, dtype=dtype)


__all__ = ["require_cuda", "simulator_enabled", "list_devices", "device_name", "gpu_worker_env",
           "point_kernel", "run_batch", "run_batch_device", "host_results", "backend", "to_device", "to_host", "DTYPES"]
