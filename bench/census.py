"""Cost of the attractor census on the paper's β_o grid, against the kernel alone on the same trajectories.

Usage: python bench/census.py [--values 401] [--starts 64] [--steps 20000] [--tail 1000]

The quick census of docs/attractors.md: at each of ``values`` β_o on [0, 3], ``starts`` uniform random windows
(the census's default sampler), ``steps`` iterations, the last ``tail`` recorded. Measured in one run, on all
cores, after a warm-up that compiles:

* census: ``mf.find_attractors`` at every value (the kernel, then fingerprints and grouping);
* peer: ``simulate_batch`` alone on the same starts (the kernel and the recorded tails, nothing else).

Prints both wall times, the kernel's share of the census (peer / census) and the load average before and after.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import meanfield as mf
from meanfield.census import sample


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=401)
    parser.add_argument("--starts", type=int, default=64)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--tail", type=int, default=1_000)
    args = parser.parse_args()
    betas = np.linspace(0.0, 3.0, args.values)
    transient = args.steps - args.tail
    load = os.getloadavg()[0]
    mf.find_attractors(mf.presets.paper(beta_o=1.0), args.starts, 2 * args.tail + 1, args.tail, progress=False)

    begin = time.perf_counter()
    for beta in betas:
        mf.find_attractors(mf.presets.paper(beta_o=beta), args.starts, args.steps, transient, progress=False)
    census = time.perf_counter() - begin

    begin = time.perf_counter()
    for beta in betas:
        model = mf.presets.paper(beta_o=beta)
        mf.simulate_batch(model, args.steps, transient, parameters={"beta_o": np.full(args.starts, beta)},
                          start=sample(model, args.starts), record=("att",), progress=False)
    peer = time.perf_counter() - begin

    steps = args.values * args.starts * args.steps
    print(f"# {os.cpu_count()} cores; load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"{args.values} values x {args.starts} starts x {args.steps} steps = {steps:.2e} steps")
    print(f"census (find_attractors at every value): {census:6.1f} s   {steps / census:.2e} steps/s")
    print(f"peer (simulate_batch, same trajectories): {peer:6.1f} s   {steps / peer:.2e} steps/s")
    print(f"kernel share of the census: {peer / census:.0%}")


if __name__ == "__main__":
    main()
