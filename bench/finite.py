"""Throughput of the finite-N network (docs/model.md §6.1) against the reference's figures (docs/model.md §9).

Spin updates = N_se sampled bits per token step per replica, for both samplers (the binomial sampler
draws one exact Binomial per column class instead of N_se uniform numbers, so its rate is per-class
work credited with N_se updates; both are reported). Replicas run in parallel over the cores (prange);
"1 replica" is the single-core figure comparable with the reference's single process.

Run: python bench/finite.py
"""
import time

import meanfield as mf
from meanfield.finite import simulate_finite_batch

#: Reference (authors' code, 2-core VM, one process): ms per token step at N_se (docs/model.md §9).
REFERENCE_MS = {990: 0.25, 99000: 5.6, 990000: 63.0}
SIZES = (990, 9900, 99000, 990000)


def seconds_per_step(model, n_bits, replicas, sampler, budget=1.0):
    """Wall time per token step (whole batch), steps chosen to fill about ``budget`` seconds."""
    simulate_finite_batch(model, n_bits, model.context + 2, mf.Replicas(1, sampler=sampler))  # compile / warm up
    steps = model.context + 2
    while True:
        start = time.perf_counter()
        simulate_finite_batch(model, n_bits, steps, mf.Replicas(replicas, sampler=sampler))
        elapsed = time.perf_counter() - start
        if elapsed > budget or steps > 10 ** 6:
            return elapsed / steps
        steps *= 4


def main():
    model = mf.presets.paper(beta_o=1.26405)
    print(f"{'sampler':9s} {'N_se':>8s} {'replicas':>8s} {'ms/step':>9s} {'spin upd/s':>11s} "
          f"{'steps/s/replica':>15s} {'vs reference':>12s}")
    for sampler in ("bits", "binomial"):
        for n_bits in SIZES:
            for replicas in (1, 2):
                per_step = seconds_per_step(model, n_bits, replicas, sampler)
                rate = n_bits * replicas / per_step
                ref = REFERENCE_MS.get(n_bits)
                ratio = f"{rate / (n_bits / (ref * 1e-3)):10.1f}x" if ref else f"{'-':>11s}"
                print(f"{sampler:9s} {n_bits:8d} {replicas:8d} {per_step * 1e3:9.4f} {rate:11.3e} "
                      f"{replicas / per_step:15.1f} {ratio}")


if __name__ == "__main__":
    main()
