"""Censuses near the located bifurcations of the paper model's onset region (docs/attractors.md §8): at 1e-3 and
3e-4 on either side of each transition `meanfield analyze --bifurcations` locates by multipliers on
runs/paper_onset.toml, a 64-start census of 40 000 steps (20 000 transient, exponents) — the share of its starts
left unresolved, and whether each attractor's label equals `classify` of a long run from its state.

Usage: python bench/near_bifurcations.py [--long 200000]
"""
from __future__ import annotations

import argparse
import time

import meanfield as mf
from meanfield.analysis import classify

#: The transitions located by multipliers (`meanfield analyze results/paper_onset.h5 --bifurcations`).
LOCATED = {"neimark_sacker": 1.2434445478, "fold (1:4 tongue, lower)": 1.2494911683,
           "fold (1:4 tongue, upper)": 1.2510213149, "period doubling (136)": 1.2625174485,
           "fold (period 28)": 1.2669595501, "period doubling (28)": 1.2711183759}
OFFSETS = (-1e-3, -3e-4, 3e-4, 1e-3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", type=int, default=200_000, help="steps of each attractor's long run (half transient)")
    args = parser.parse_args()
    began = time.perf_counter()
    worst, disagree = 0.0, 0
    print("| transition | β_o | offset | unresolved | attractors (label, period, fraction) | classify of a long run |")
    print("|---|---|---|---|---|---|")
    for name, value in LOCATED.items():
        for offset in OFFSETS:
            model = mf.presets.paper(beta_o=value + offset)
            census = mf.find_attractors(model, 64, 40_000, 20_000, lyapunov=True, compute=mf.Compute(progress=False))
            labels = []
            for a in census.attractors:
                run = mf.simulate(model, args.long, args.long // 2, start=a.state, lyapunov=True)
                labels.append(classify(run).label)
                disagree += labels[-1] != a.label
            worst = max(worst, census.unsettled_fraction)
            found = ", ".join(f"{a.label} {a.period} {a.fraction:.0%}" for a in census.attractors) or "—"
            same = "all equal" if all(own == a.label for own, a in zip(labels, census.attractors)) else \
                "differ: " + ", ".join(labels)
            print(f"| {name} | {value + offset:.10f} | {offset:+.0e} | {census.unsettled_fraction:.0%} | {found} | "
                  f"{same} |", flush=True)
    print(f"\nlargest unresolved share {worst:.0%}; attractors whose label differs from classify's: {disagree}; "
          f"{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
