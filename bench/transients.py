"""The chaotic transient of the paper model at β_o = 1.3 (docs/attractors.md §7): how long random starts wander
before they reach the period-32 cycle, and the escape rate of that transient.

Usage: python bench/transients.py [--beta 1.3] [--starts 128] [--chunk 100000] [--chunks 30]

128 uniform random starts (the census's sampler, seed 0) run in chunks of ``chunk`` steps, all on the batched
kernel, and a start has reached a cycle at the end of the first chunk whose last 600 attention rows repeat with a
period up to 256 (:func:`meanfield.analysis.fingerprint.cycle_periods`, the census's criterion); the periods
reached are printed. The escape rate is estimated per chunk (:func:`meanfield.analysis.transients.
escape_rate` on chunk counts; censored at the last chunk) and converted to steps.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import meanfield as mf
from meanfield.analysis.fingerprint import cycle_periods
from meanfield.analysis.transients import escape_rate
from meanfield.model.state import StartWindows
from meanfield.systems.starts import sample

ROWS = 600


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beta", type=float, default=1.3)
    parser.add_argument("--starts", type=int, default=128)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--chunks", type=int, default=30)
    args = parser.parse_args()
    began = time.perf_counter()
    model = mf.presets.paper(beta_o=args.beta)
    starts = sample(model, args.starts, "uniform", seed=0)
    windows = StartWindows(np.stack([s.att for s in starts]), starts[0].pe)
    chunk_of_arrival = np.full(args.starts, np.inf)
    periods = np.zeros(args.starts, dtype=int)
    beta = np.full(args.starts, args.beta)
    for k in range(1, args.chunks + 1):
        run = mf.simulate_batch(model, args.chunk, args.chunk - ROWS, parameters={"beta_o": beta}, start=windows,
                                record=("att",), compute=mf.Compute(progress=False))
        found = cycle_periods(run.records["att"], 256)
        arrived = np.isinf(chunk_of_arrival) & (found > 0)
        chunk_of_arrival[arrived], periods[arrived] = k, found[arrived]
        windows = StartWindows(run.final_att, run.final_pe[0])
        print(f"  after {k * args.chunk:>9,d} steps: {int(np.isfinite(chunk_of_arrival).sum()):4d} of "
              f"{args.starts} on the cycle", flush=True)
    reached = dict(zip(*np.unique(periods[periods > 0], return_counts=True)))
    print("periods reached: " + (", ".join(f"{p} ({n} starts)" for p, n in reached.items()) or "none"))
    found = escape_rate(chunk_of_arrival, args.chunks)
    rate, stderr = found.rate / args.chunk, found.stderr / args.chunk
    print(f"escape rate {rate:.3e} ± {stderr:.1e} per step: mean lifetime {1 / rate:.3g} steps "
          f"({found.escaped} of {found.at_risk} starts escaped within {args.chunks * args.chunk:,d} steps); "
          f"{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
