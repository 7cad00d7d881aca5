"""The paper model's attractors over β_o ∈ [1.24, 3.0] (docs/attractor_census.png, README "Every attractor at
every β"): a census of 128 uniform starts at every value, seeded by the previous value's attractors, ids matched
along β_o, forward (colours) and backward (black) — docs/attractors.md.

Usage: python analysis/attractor_census.py [--out figures] [--values 45] [--starts 128]
Prints where attractors appear and vanish and writes OUT/attractor_census.png.
"""
import argparse
import os
import time

import numpy as np

import meanfield as mf
from meanfield.plots.attractors import attractors_figure


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="figures")
    parser.add_argument("--values", type=int, default=45)
    parser.add_argument("--starts", type=int, default=128)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    betas = np.linspace(1.24, 3.0, args.values)
    begin = time.perf_counter()
    runs = [mf.continue_attractors(mf.presets.paper(), "beta_o", betas, args.starts, 60_000, 56_000,
                                   reverse=reverse, progress=False) for reverse in (False, True)]
    print(f"{2 * betas.size} censuses of {args.starts} starts in {time.perf_counter() - begin:.0f} s")
    forward = runs[0]
    print(f"{forward.n_ids} attractor ids forward; at most {max(len(c.attractors) for c in forward.censuses)} "
          "coexisting at one β_o")
    for value, i, what, label, period in forward.events():
        print(f"  β_o = {value:.3f}: id {i} {what} ({label}{f', period {period}' if period else ''})")
    fig = attractors_figure(forward.to_dataset(), backward=runs[1].to_dataset(), parameter="β_o")
    fig.savefig(os.path.join(args.out, "attractor_census.png"), dpi=150)


if __name__ == "__main__":
    main()
