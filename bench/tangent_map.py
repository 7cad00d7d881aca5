"""The tangent map's cost: steps per second with Lyapunov exponents, for whatever ``meanfield`` is importable, so
that a tree and an earlier commit (a git worktree on PYTHONPATH) can be run alternately on the same machine
(bench/RESULTS.md, "Many features").

Usage: python bench/tangent_map.py [--seconds 2]
       PYTHONPATH=/path/to/worktree python bench/tangent_map.py

Rows: the random preset (seed 7, N_se = 128, L = 16) at M = 64 and 128 with 8 exponents, 256 β_o points (the
many-feature kernels: docs/model.md §4.1); M = 64 with 8 exponents, one point; the paper model with its 12
exponents, 1 024 points (the kernels compiled for its shape). The rate is the marginal one between runs of s and 4s
steps (best of three each), as in bench/many_features.py, on all cores; the load average is printed before and
after.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from many_features import starts  # noqa: E402

import meanfield as mf  # noqa: E402


def rate(model, n_points, exponents, seconds):
    """Steps per second of ``simulate_batch`` of n_points β_o values with ``exponents`` exponents (marginal)."""
    betas = np.linspace(0.5, 3.0, n_points)
    start = starts(model, n_points) if model.checkpoint is None else None

    def call(steps):
        t0 = time.perf_counter()
        mf.simulate_batch(model, steps, 0, parameters={"beta_o": betas}, start=start, record=(),
                          lyapunov=exponents, compute=mf.Compute(progress=False))
        return time.perf_counter() - t0

    call(4)
    steps = 4
    while call(4 * steps) - call(steps) < seconds / 4 and steps < 10 ** 7:
        steps *= 4
    short, long = min(call(steps) for _ in range(3)), min(call(4 * steps) for _ in range(3))
    return n_points * 3 * steps / (long - short)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args(argv)
    print(f"meanfield from {os.path.dirname(mf.__file__)}; load average before: {os.getloadavg()}", flush=True)
    rows = [("M = 64, L = 16, 8 exponents, 256 points", dict(n_features=64), 256, 8),
            ("M = 128, L = 16, 8 exponents, 256 points", dict(n_features=128), 256, 8),
            ("M = 64, L = 16, 8 exponents, 1 point", dict(n_features=64), 1, 8)]
    for label, case, n_points, exponents in rows:
        model = mf.presets.random(seed=7, semantic_bits=128, context=16, pe_bits=4, **case)
        print(f"{label:<48} {rate(model, n_points, exponents, args.seconds):>10.3g} steps/s", flush=True)
    paper = mf.presets.paper()
    print(f"{'paper model, 12 exponents, 1 024 points':<48} {rate(paper, 1024, True, args.seconds):>10.3g} steps/s",
          flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
