"""CUDA backend: the shared step functions of :mod:`.step` compiled as numba.cuda device functions, one
thread per parameter point (docs/model.md §3.3).

There is one definition of the model: :func:`meanfield.kernels.step.build_steps` is called with
``cuda.jit(device=True)`` and the kernel here only allocates per-thread scratch (``cuda.local.array``, sized
at compile time by a kernel factory keyed by (L, M, J, k, dtype)) and calls ``run_tile`` with a tile of one
lane: every per-point array has a last axis of length 1 (docs/model.md §3, §4). In float64 the map uses the
CPU's exp, tanh and log (:mod:`.lane_math`), so both backends compute the same arithmetic; float32 uses the
device's own.

Device layout: arrays a thread writes have the point on the LAST axis (records (rows, n_sel, M, n), block
sums (B, k, n), windows (L, M, n)) so that neighbouring threads touch neighbouring addresses (coalesced);
``run_tile`` receives the one-point slices ``[..., i:i + 1]``, which have the lane layout. :func:`run_batch` has the CPU
kernel's signature and returns host arrays in the CPU layout; :func:`run_batch_device` keeps everything on the device
for the on-device reductions of :mod:`.cuda_reductions`.

Availability is checked before anything is compiled: without numba-cuda, a driver or a GPU (and outside the
simulator, ``NUMBA_ENABLE_CUDASIM=1``) :func:`require_cuda` raises :class:`~meanfield.errors.BackendError`.
"""
from __future__ import annotations

import functools
import os

import numpy as np

from ..errors import BackendError

try:  # module-level name: the simulator swaps the global ``cuda`` of kernels for its fake module
    from numba import cuda
except ImportError:  # pragma: no cover - the GPU extra is not installed
    cuda = None

#: Threads per block; run_tile keeps windows and tangent vectors in local memory, so blocks stay small.
THREADS_PER_BLOCK = 128
#: Dtypes a batch can run in (float64 by default, float32 only where asked).
DTYPES = ("float64", "float32")


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
    """The model's step functions as CUDA device functions (built once per shape, compiled on first launch)."""
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

    Launch as ``kernel[blocks, threads](coef, signs, w_pe, params, pe0, att, depth, ctrl, stats, steps,
    transient, record_every, selection, qr_every, records, block_sums, tangent0)`` with ``params`` (K, n) and
    ``pe0`` (L, P, n). ``att`` (L, M, n), ``depth`` (n,) and ``ctrl`` (3, M, n) hold the start and receive the
    final state; ``stats`` (2, n) the control statistics; ``tangent0`` is a (0, L·M + 2M, 1) array used as
    the tangent scratch when k = 0 (a real GPU rejects zero-sized local arrays).
    """
    require_cuda()
    import numba

    from ..model.layout import CTRL_ROWS, CTRL_STATE_ROWS, P_KD, P_KI, P_KP
    run_tile = _steps(ring, n_feat, n_patterns, dtype)["run_tile"]
    dt = getattr(numba, dtype)
    size_controlled = ring * n_feat + 2 * n_feat   # closure constants: local array shapes must be literal
    qr_rows = size_controlled + 1
    n_state = CTRL_STATE_ROWS

    @cuda.jit(device=True)
    def one_point(i, coef, signs, w_pe, params, pe0, att, depth, ctrl_io, stats, steps, transient, record_every,
                  selection, qr_every, records, block_sums, tangent):
        att_ring = cuda.local.array((ring, n_feat, 1), dt)
        ctrl = cuda.local.array((CTRL_ROWS, n_feat, 1), dt)
        depth_lane = cuda.local.array(1, numba.int64)
        for a in range(n_feat):
            for d in range(ring):
                att_ring[d, a, 0] = att[d, a, i]
            for r in range(CTRL_ROWS):
                ctrl[r, a, 0] = ctrl_io[r, a, i] if r < n_state else 0.0
        depth_lane[0] = depth[i]
        controlled = params[P_KP, i] != 0.0 or params[P_KI, i] != 0.0 or params[P_KD, i] != 0.0
        run_tile(coef, signs, w_pe, params[:, i:i + 1], pe0[:, :, i:i + 1], att_ring, depth_lane, ctrl, controlled,
                 steps, transient, record_every, selection, qr_every, cuda.local.array((4, ring, n_feat, 1), dt),
                 cuda.local.array((n_patterns, 1), dt), cuda.local.array((4, n_feat, 1), dt),
                 cuda.local.array((n_feat, 1), dt), cuda.local.array((ring, n_feat, 1), dt),
                 cuda.local.array((ring, n_feat, 1), dt), cuda.local.array((ring, 1), dt),
                 cuda.local.array((n_feat, 1), dt), cuda.local.array((ring, n_feat, n_feat, 1), dt),
                 cuda.local.array((ring, n_feat, n_feat, 1), dt), cuda.local.array((1, n_feat, n_feat, 1), dt),
                 cuda.local.array((ring, n_feat, n_feat, 1), dt), tangent, cuda.local.array((n_feat, 1), dt),
                 cuda.local.array((2, 1), dt), cuda.local.array(1, dt), cuda.local.array((qr_rows, 1), dt),
                 records[:, :, :, i:i + 1], block_sums[:, :, i:i + 1], stats[:, i:i + 1], att[:, :, i:i + 1],
                 depth[i:i + 1], ctrl_io[:, :, i:i + 1])

    if n_vec:
        @cuda.jit
        def kernel(coef, signs, w_pe, params, pe0, att, depth, ctrl_io, stats, steps, transient, record_every,
                   selection, qr_every, records, block_sums, tangent0):
            i = cuda.grid(1)
            if i < depth.shape[0]:
                tangent = cuda.local.array((n_vec, size_controlled, 1), dt)
                one_point(i, coef, signs, w_pe, params, pe0, att, depth, ctrl_io, stats, steps, transient,
                          record_every, selection, qr_every, records, block_sums, tangent)
    else:
        @cuda.jit
        def kernel(coef, signs, w_pe, params, pe0, att, depth, ctrl_io, stats, steps, transient, record_every,
                   selection, qr_every, records, block_sums, tangent0):
            i = cuda.grid(1)
            if i < depth.shape[0]:
                one_point(i, coef, signs, w_pe, params, pe0, att, depth, ctrl_io, stats, steps, transient,
                          record_every, selection, qr_every, records, block_sums, tangent0)
    return kernel


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


def run_batch_device(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, steps, transient, record_every,
                     selection, n_exponents, qr_every, n_blocks, dtype="float64") -> dict:
    """Run a batch on the device and leave the results there (arguments as :func:`run_batch`).

    Returns a dict of device arrays in the point-last layout: ``records`` (rows, n_sel, M, n) in ``dtype``,
    ``att`` (L, M, n) final windows, ``depth`` (n,), ``ctrl`` (3, M, n), ``stats`` (2, n) and
    ``block_sums`` (B, k, n) float64 (log-norm sums stay in float64 whatever ``dtype``, so long runs do not
    lose the exponents to accumulation error).
    """
    require_cuda()
    dtype = check_dtype(dtype)
    n_points, ring, n_feat = att0.shape
    n_rec = (steps - transient + record_every - 1) // record_every
    selection = np.ascontiguousarray(selection, dtype=np.int64)
    cast = (lambda a: to_device(np.asarray(a, dtype=dtype)))
    out = {"records": device_zeros((n_rec, selection.shape[0], n_feat, n_points), dtype),
           "att": cast(np.moveaxis(att0, 0, -1)),
           "depth": to_device(np.asarray(depth0, dtype=np.int64)),
           "ctrl": cast(np.moveaxis(ctrl0, 0, -1)),
           "stats": device_zeros((2, n_points), dtype),
           "block_sums": device_zeros((n_blocks, n_exponents, n_points), np.float64)}
    kernel = point_kernel(ring, n_feat, signs.shape[0], int(n_exponents), dtype)
    if n_points:
        # numba's simulator runs a block's threads as Python threads that take a lock at every device-function
        # call; a block of one thread runs them one after the other (a point never reads another's lane).
        threads = 1 if simulator_enabled() else THREADS_PER_BLOCK
        try:
            kernel[(n_points + threads - 1) // threads, threads](
                cast(coef), cast(signs), cast(w_pe), cast(np.transpose(params)), cast(np.moveaxis(pe0, 0, -1)),
                out["att"], out["depth"], out["ctrl"], out["stats"], int(steps), int(transient), int(record_every),
                to_device(selection), int(qr_every), out["records"], out["block_sums"],
                device_zeros((0, (ring + 2) * n_feat, 1), dtype))
            cuda.synchronize()
        except Exception as exc:
            if type(exc).__module__.startswith(("numba.cuda.cudadrv", "numba_cuda", "cupy")):
                raise BackendError(f"backend = 'cuda': the kernel failed on the device ({exc})") from exc
            raise
    return out


def run_batch(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, steps, transient, record_every, selection,
              n_exponents, qr_every, n_blocks, dtype="float64"):
    """Iterate every point of a batch on the GPU with the CPU ``run_batch`` signature and returns
    (:func:`meanfield.kernels.step.build_steps`): records (n, rows, n_sel, M), final windows (n, L, M),
    final depths (n,), block sums (n, B, k), final control state (n, 3, M), control statistics (n, 2) — as
    float64 host arrays. ``dtype`` = "float32" computes in single precision (its cost in accuracy:
    :func:`meanfield.studies.precision.precision_check`).
    """
    out = run_batch_device(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, steps, transient, record_every,
                           selection, n_exponents, qr_every, n_blocks, dtype)
    return host_results(out, out["records"])


def host_results(out: dict, records) -> tuple:
    """The CPU kernel's returns from :func:`run_batch_device` output, with ``records`` (all or some rows of
    ``out["records"]``): float64 host arrays, point axis first."""
    last_first = (lambda a: np.ascontiguousarray(np.moveaxis(to_host(a), -1, 0), dtype=np.float64))
    return (last_first(records), last_first(out["att"]), to_host(out["depth"]).astype(np.int64),
            last_first(out["block_sums"]), last_first(out["ctrl"]), last_first(out["stats"]))


def backend(dtype="float64"):
    """The CUDA ``run_batch`` for :func:`meanfield.simulate.simulate_batch`, after checking CUDA is usable."""
    require_cuda()
    dtype = check_dtype(dtype)
    return run_batch if dtype == "float64" else functools.partial(run_batch, dtype=dtype)


__all__ = ["require_cuda", "simulator_enabled", "list_devices", "device_name", "gpu_worker_env",
           "point_kernel", "run_batch", "run_batch_device", "host_results", "backend", "to_device", "to_host", "DTYPES"]
