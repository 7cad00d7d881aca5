"""The PID comparison (docs/pid_comparison.png, README "Comparing with PID-controlled attention"): the five 1-D
variants of runs/pid_{none,p,pi,pd,pid}.toml and the two class maps runs/pid_map_{kp,ki}.toml side by side,
with the table of class fractions, collapse, robustness and wind-up (docs/model.md §5.4).

Usage: python analysis/pid_comparison.py [--out figures] [--results results]
Runs (or resumes) the seven sweeps into RESULTS/pid_*.h5, then `meanfield compare RESULTS/pid_*.h5 -o
OUT/pid_comparison`: OUT/pid_comparison.png, _fractions.png, .md and .csv.
`--out docs` rebuilds the README's figure (about 5 minutes on 2 cores).
"""
import argparse
import os
import sys

import meanfield as mf
from meanfield.cli import main as meanfield_command

VARIANTS = ("none", "p", "pi", "pd", "pid", "map_kp", "map_ki")
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="figures")
    parser.add_argument("--results", default="results")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.results, exist_ok=True)
    paths = []
    for variant in VARIANTS:
        paths.append(os.path.join(args.results, f"pid_{variant}.h5"))
        mf.sweep(mf.load_run(os.path.join(HERE, "..", "runs", f"pid_{variant}.toml")), paths[-1])
    return meanfield_command(["compare", *paths, "-o", os.path.join(args.out, "pid_comparison")])


if __name__ == "__main__":
    sys.exit(main())
