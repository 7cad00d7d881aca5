"""Throughput of the CPU kernel on the paper configuration, against peers measured in the same run.

Usage: python bench/throughput.py [--points 4096] [--steps 2000]
Prints steps/s (one step = one parameter point advanced by one iteration) for the numba kernel without
exponents and with the full 12-exponent spectrum, the batch-vectorised numpy peer (bench/numpy_peer.py)
and the reference-style one-point loop, and their ratios. Absolute numbers on a shared machine are noise;
the ratios are the result.
"""
import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import meanfield as mf  # noqa: E402
from numpy_peer import VectorisedPeer, reference_style_loop  # noqa: E402


def best_of(fn, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    model = mf.presets.paper()
    betas = np.linspace(0, 3, args.points)
    start = model.checkpoint
    n, steps = args.points, args.steps
    lyap_steps = max(steps // 10, 20)
    mf.simulate_batch(model, 10, 5, parameters={"beta_o": betas[:2]}, lyapunov=True, record=("mo_se",))

    def kernel(exponents, s):
        # with exponents every saved step carries the tangent dynamics: 1 transient step, s saved steps
        if exponents:
            return lambda: mf.simulate_batch(model, s + 1, 1, parameters={"beta_o": betas}, lyapunov=True, record=())
        return lambda: mf.simulate_batch(model, s, s - 1, parameters={"beta_o": betas}, record=("mo_se",))

    peer = VectorisedPeer(model, betas)
    att0 = np.repeat(start.att[None], n, 0)
    rows = []
    t = best_of(kernel(False, steps))
    rows.append(("numba kernel, no exponents", n * steps / t))
    t = best_of(kernel(True, lyap_steps))
    rows.append(("numba kernel, 12 exponents", n * lyap_steps / t))
    peer_steps = max(steps // 20, 10)
    t = best_of(lambda: peer.run(att0, start.pe, peer_steps), 2)
    rows.append(("numpy vectorised peer, no exponents", n * peer_steps / t))
    peer512 = VectorisedPeer(model, betas[:512])
    t = best_of(lambda: peer512.run(att0[:512], start.pe, 5, exponents=True), 2)
    rows.append(("numpy vectorised peer, 12 exponents", 512 * 5 / t))
    t = best_of(lambda: reference_style_loop(model.replace(beta_o=1.3), start.att, start.pe, 500), 2)
    rows.append(("reference-style numpy loop, no exponents", 500 / t))
    rate = dict(rows)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"numba threads {os.environ.get('NUMBA_NUM_THREADS', 'all')}, {n} points")
    print(f"{'implementation':45s} {'steps/s':>12s}")
    for name, value in rows:
        print(f"{name:45s} {value:12.3e}")
    print()
    print(f"kernel / vectorised numpy (no exponents):  {rate['numba kernel, no exponents'] / rate['numpy vectorised peer, no exponents']:8.1f}x")
    print(f"kernel / vectorised numpy (12 exponents):  {rate['numba kernel, 12 exponents'] / rate['numpy vectorised peer, 12 exponents']:8.1f}x")
    print(f"kernel / reference-style loop:             {rate['numba kernel, no exponents'] / rate['reference-style numpy loop, no exponents']:8.1f}x")
    print("reference (docs/model.md §9, 2-core VM): 0.24-0.29 ms/step = 3.5e3-4.2e3 steps/s; 10.5-11.5 ms/step with exponents = 87-95 steps/s")
    print(f"kernel / reference, no exponents: {rate['numba kernel, no exponents'] / 4.2e3:8.0f}x; "
          f"with exponents: {rate['numba kernel, 12 exponents'] / 95:8.0f}x")


if __name__ == "__main__":
    main()
