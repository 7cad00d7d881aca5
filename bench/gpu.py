"""GPU throughput of the CUDA backend: steps/s for 10^3 … 10^6 points, float64 and
float32, with and without Lyapunov exponents, and the full Figure 3 sweep (4001 β_o on [0, 3], 175000 steps,
100000 transient, 12 exponents, on-device reductions of mo_se). The peer is the CPU kernel measured in the
same run (steps/s on all cores), printed as a ratio.

    python bench/gpu.py                 # everything (needs a CUDA GPU)
    python bench/gpu.py --no-fig3       # throughput table only
    NUMBA_ENABLE_CUDASIM=1 python bench/gpu.py --smoke   # the script's logic, tiny sizes, in the simulator

Targets on an H100/H200: >= 1e10 float64 steps/s at 1e6 points; the Figure 3 sweep with exponents <= 10 s.
Steps are point-iterations (one step of one grid point). Compilation is excluded (one warm-up launch).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import meanfield as mf
from meanfield.errors import BackendError
from meanfield.model.layout import Batch, batch_parameters, control_start, map_tables
from meanfield.simulation import _start_arrays

FIG3 = dict(points=4001, beta=(0.0, 3.0), steps=175_000, transient=100_000, exponents=12)


def paper_batch(model, n_points: int, steps: int, n_exponents: int, beta=(0.5, 3.0), transient=0, n_blocks=1,
                record_every=None):
    """The kernel's :class:`~meanfield.model.layout.Batch` for ``n_points`` β_o values from the model's checkpoint
    (or :func:`random_start`; a full window, so exponents run from t = transient), recording mo_se every
    ``record_every`` steps (default: once, so the timing is the iteration, not the recording), built without a
    per-point Python loop."""
    params = batch_parameters(model, {"beta_o": np.linspace(*beta, n_points)})
    start = model.checkpoint if model.checkpoint is not None else random_start(model)
    att1, pe1, depth1 = _start_arrays(model, start, 1)[:3]
    att0, pe0, depth0 = (np.repeat(a, n_points, axis=0) for a in (att1, pe1, depth1))
    ctrl0 = np.repeat(control_start(params[:1], att1), n_points, axis=0)
    coef, signs, w_pe = map_tables(model)
    record_every = steps - transient if record_every is None else record_every
    return Batch(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, steps, transient, record_every,
                 np.array([2], dtype=np.int64), n_exponents, 1, n_blocks)


def random_start(model) -> mf.State:
    """A fixed start for a model without a checkpoint (the random preset's)."""
    rng = np.random.default_rng(0)
    return mf.State(att=rng.uniform(-0.8, 0.8, (model.context, model.n_features)),
                    pe=rng.choice([-1.0, 1.0], (model.context, model.pe_bits)))


def gpu_rate(model, n_points, n_exponents, dtype, seconds):
    """Steps/s of the kernel: the marginal rate between a launch of ``steps`` and one of ``2·steps``, with
    ``steps`` doubled until the difference takes about ``seconds / 4``: a launch's fixed cost (host copies,
    allocation) cancels. The batch is built on the host once, outside the timing."""
    from meanfield.kernels.cuda import run_batch_device
    batch = paper_batch(model, n_points, 20, n_exponents)

    def launch(steps):
        t0 = time.perf_counter()
        run_batch_device(batch._replace(steps=steps, record_every=steps), dtype=dtype)
        return time.perf_counter() - t0

    launch(20)      # compile + warm up
    steps = 20
    while True:
        short, long = launch(steps), launch(2 * steps)
        if long - short >= seconds / 4 or steps >= 500_000:
            return n_points * steps / max(long - short, 1e-9), 2 * steps
        steps = int(min(steps * max(2.0, seconds / max(long - short, 1e-6)), 500_000))


def cpu_rate(model, n_exponents, n_points=64, steps=2000):
    """The peer: the CPU kernel's steps/s (numba prange over all cores)."""
    from meanfield.kernels.cpu import run_batch
    run_batch(paper_batch(model, 4, 10, n_exponents))
    t0 = time.perf_counter()
    run_batch(paper_batch(model, n_points, steps, n_exponents))
    return n_points * steps / (time.perf_counter() - t0)


def fig3(model, points, steps, transient, exponents):
    """Wall time of the Figure 3 sweep in one launch: simulate_batch-equivalent kernel arguments, device
    reductions of mo_se (meanfield.analysis.reductions defaults) and exponents copied back."""
    from meanfield.kernels.cuda_reductions import ReducingBackend
    from meanfield.simulation import exponents_from_blocks
    from meanfield.sweeps.config.tables import ReductionSpec
    batch = paper_batch(model, points, steps, exponents, beta=FIG3["beta"], transient=transient, n_blocks=20,
                        record_every=1)
    kernel = ReducingBackend(ReductionSpec(), tail=0)
    kernel(paper_batch(model, 2, 10, exponents, transient=5, record_every=1))              # compile
    t0 = time.perf_counter()
    out = kernel(batch)
    exponents_from_blocks(out.block_sums, steps - transient)
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, nargs="*", default=[1_000, 10_000, 100_000, 1_000_000])
    ap.add_argument("--seconds", type=float, default=2.0, help="target time per measurement")
    ap.add_argument("--no-fig3", action="store_true", help="skip the Figure 3 sweep")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes (the simulator: checks the script)")
    args = ap.parse_args(argv)
    from meanfield.kernels.cuda import device_name, list_devices, simulator_enabled
    try:
        list_devices()
    except BackendError as exc:
        raise SystemExit(f"bench/gpu.py: no GPU to benchmark: {exc}") from None
    if simulator_enabled() and not args.smoke:
        raise SystemExit("bench/gpu.py: NUMBA_ENABLE_CUDASIM=1 is set (the simulator times nothing useful); "
                         "use --smoke to check the script, or unset it on a GPU machine")
    fig3_config = dict(FIG3)
    if args.smoke:
        args.points, args.seconds = [8, 16], 0.05
        fig3_config.update(points=9, steps=60, transient=20)
    model = mf.presets.paper()
    print(f"device: {device_name()}")
    peers = {k: cpu_rate(model, k, *((8, 50) if args.smoke else ())) for k in (0, 12)}
    print(f"peer: CPU kernel, {peers[0]:.3g} steps/s without exponents, {peers[12]:.3g} with 12")
    print(f"{'points':>9} {'dtype':>8} {'exponents':>9} {'steps':>8} {'steps/s':>10} {'vs CPU':>8}")
    for n_points in args.points:
        for dtype in ("float64", "float32"):
            for k in (0, 12):
                rate, steps = gpu_rate(model, n_points, k, dtype, args.seconds)
                print(f"{n_points:>9} {dtype:>8} {k:>9} {steps:>8} {rate:>10.3g} {rate / peers[k]:>7.0f}x",
                      flush=True)
    # many features: the random preset at M = 64, L = 16, N_se = 128 (K = 128 sign classes), float64
    wide = mf.presets.random(seed=7, n_features=64, semantic_bits=128, context=16, pe_bits=4)
    if args.smoke:
        wide = mf.presets.random(seed=7, n_features=8, semantic_bits=16, context=4, pe_bits=2)
    wide_peer = cpu_rate(wide, 0, *((8, 20) if args.smoke else (64, 200)))
    print(f"M = {wide.n_features}, L = {wide.context}, K = {wide.tanh_signs.shape[0]}: CPU kernel "
          f"{wide_peer:.3g} steps/s without exponents")
    for n_points in args.points:
        rate, steps = gpu_rate(wide, n_points, 0, "float64", args.seconds)
        print(f"{n_points:>9} {'float64':>8} {0:>9} {steps:>8} {rate:>10.3g} {rate / wide_peer:>7.0f}x  "
              f"(M = {wide.n_features})", flush=True)
    if not args.no_fig3:
        c = fig3_config
        seconds = fig3(model, c["points"], c["steps"], c["transient"], c["exponents"])
        cpu_estimate = c["points"] * c["steps"] / peers[12]
        print(f"Figure 3 sweep ({c['points']} β_o, {c['steps']} steps, {c['transient']} transient, "
              f"{c['exponents']} exponents, device reductions): {seconds:.2f} s "
              f"(CPU kernel estimate {cpu_estimate:.0f} s, {cpu_estimate / seconds:.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
