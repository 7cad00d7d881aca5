"""Throughput of the CPU kernel on the paper configuration, against peers measured in the same run.

Usage: python bench/throughput.py [--points 1024] [--steps 400] [--repeats 15]
One step = one parameter point advanced by one iteration; "12 exponents" = every step also pushes the 12
tangent vectors and re-orthonormalises them (the Lyapunov part of Figure 3). Measured, interleaved rep by rep:

* lane kernel: tiles of W points vectorised over lanes (meanfield.kernels.cpu, the default);
* scalar path: the same step with one lane per tile and the C library's exp/tanh/log, i.e. the arithmetic of
  the kernel before lane math, one point at a time (the GPU's path);
* lane kernel with the C library's exp/tanh/log (vector arithmetic, scalar transcendentals);
* stand-in: the lane kernel with exp, tanh and log replaced by a multiply-add (wrong results; it bounds
  what faster transcendentals could still give);
* the numpy peer vectorised over the batch (bench/numpy_peer.py).

Per-core throughput is steps per CPU-second of one thread (numba.set_num_threads(1), thread CPU time, the best
of the repeats), which a loaded machine disturbs least; the all-cores figure is wall-clock with every numba
thread. Ratios are taken rep by rep against the scalar path (median of the paired ratios). The load average
is printed before and after.
"""
import argparse
import os
import platform
import sys
import time

import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_peer import VectorisedPeer  # noqa: E402

import meanfield as mf  # noqa: E402
from meanfield.kernels import cpu  # noqa: E402
from meanfield.model.layout import Batch, batch_parameters, control_start, map_tables  # noqa: E402


def stand_in(jit):
    """exp, tanh and log replaced by a multiply-add each (a cost bound, not a model)."""
    def fake_exp(x):
        return 1.0 + 0.5 * x

    def fake_tanh(x):
        return 0.5 * x

    def fake_log(x):
        return 0.5 * x - 1.0

    return jit(fake_exp), jit(fake_tanh), jit(fake_log)


cpu.MATH_LIBRARIES["stand-in"] = stand_in


def kernel_call(model, betas, steps, exponents, **options):
    """A run_batch call on the checkpoint start: ``steps`` recorded steps (mo_se) or, with ``exponents``,
    ``steps`` steps of the 12-vector tangent dynamics after one transient step (nothing recorded)."""
    params = batch_parameters(model, {"beta_o": betas})
    n = len(betas)
    att0 = np.repeat(model.checkpoint.att[None], n, 0)
    pe0 = np.repeat(model.checkpoint.pe[None], n, 0)
    depth0 = np.full(n, model.context)
    coef, signs, w_pe = map_tables(model)
    total, transient = (steps + 1, 1) if exponents else (steps, 0)
    batch = Batch(coef, signs, w_pe, params, pe0, att0, depth0, control_start(params, att0), total, transient, 1,
                  np.array([], dtype=np.int64) if exponents else np.array([2]), 12 if exponents else 0, 1, 1)
    return lambda: cpu.run_batch(batch, **options)


def timed(fn, clock):
    start = clock()
    fn()
    return clock() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    model = mf.presets.paper()
    n, steps = args.points, args.steps
    betas = np.linspace(0, 3, n)
    variants = {"lane kernel": {}, "scalar path (W=1, libm)": {"width": 1, "math_library": "libm"},
                "lane kernel, libm exp/tanh/log": {"math_library": "libm"},
                "stand-in: exp/tanh/log -> multiply": {"math_library": "stand-in"}}
    # work per call: (points, steps) chosen so every call takes a few hundred ms at most
    work = {False: (n, steps), True: (n // 4, max(steps // 4, 10))}
    calls = {(name, e): kernel_call(model, betas[:work[e][0]], work[e][1], e, **options)
             for name, options in variants.items() for e in (False, True)}
    for call in calls.values():                     # compile (or load from numba's cache)
        call()
    peer, peer_small = VectorisedPeer(model, betas[:256]), VectorisedPeer(model, betas[:64])
    att0 = np.repeat(model.checkpoint.att[None], 256, 0)
    calls[("numpy peer", False)] = lambda: peer.run(att0, model.checkpoint.pe, 20)
    calls[("numpy peer", True)] = lambda: peer_small.run(att0[:64], model.checkpoint.pe, 4, exponents=True)
    work_of = {key: ((256, 20) if key[1] is False else (64, 4)) if key[0] == "numpy peer" else work[key[1]]
               for key in calls}

    load_before = os.getloadavg()
    threads = numba.get_num_threads()
    per_core = {key: [] for key in calls}
    all_cores = {key: [] for key in calls}
    for _ in range(args.repeats):
        numba.set_num_threads(1)
        for key, call in calls.items():
            per_core[key].append(timed(call, time.thread_time))
        numba.set_num_threads(threads)
        for key, call in calls.items():
            all_cores[key].append(timed(call, time.perf_counter))
    load_after = os.getloadavg()

    def rate(key, times):
        points, s = work_of[key]
        return points * s / np.asarray(times)

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, {threads} numba threads; "
          f"W = {cpu.tile_width(n)}; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    print(f"{'implementation':38s} {'exponents':>9s} {'per core':>10s} {'all cores':>10s} {'vs scalar':>9s}")
    for key in calls:
        name, exponents = key
        scalar = ("scalar path (W=1, libm)", exponents)
        paired = np.median(rate(key, per_core[key]) / rate(scalar, per_core[scalar]))
        print(f"{name:38s} {('12' if exponents else '0'):>9s} {rate(key, per_core[key]).max():10.3e} "
              f"{rate(key, all_cores[key]).max():10.3e} {paired:8.2f}x")
    print("per core: steps per CPU-second of one thread (best of the repeats); all cores: wall clock, every thread;"
          " vs scalar: median of the per-rep ratios of the per-core rates")


if __name__ == "__main__":
    main()
