"""The onset of chaos located by bisection and by multipliers (docs/onset_classes.png, README "Attractor classes
and located transitions"): the sweep of runs/paper_onset.toml, `meanfield analyze --refine 1e-5`, the
bifurcations located from multipliers as `meanfield analyze --bifurcations` prints them, then the class-coloured
diagram of the grid and the refined points with the label brackets as ticks and the located bifurcations as
lines (docs/bifurcations.md §6).

Usage: python analysis/onset_classes.py [--out figures] [--results results] [--resolution 1e-5]
Runs (or resumes) the sweep into RESULTS/paper_onset.h5, refines every class change to the resolution, prints
the located transitions and writes OUT/onset_classes.png (`meanfield plot classes RESULTS/paper_onset.h5` draws
the same figure without the located bifurcations). `--out docs` rebuilds the README's figure (the continuation
takes minutes on 2 cores).
"""
import argparse
import os
import sys

import meanfield as mf
from meanfield.cli import main as meanfield_command
from meanfield.plots.data import sweep_caption
from meanfield.plots.sweep import class_bifurcation
from meanfield.sweeps.results.refine import classified_points
from meanfield.sweeps.results.transitions import located_table, sweep_bifurcations

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="figures")
    parser.add_argument("--results", default="results")
    parser.add_argument("--resolution", default="1e-5")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.results, exist_ok=True)
    path = os.path.join(args.results, "paper_onset.h5")
    mf.sweep(mf.load_run(os.path.join(HERE, "..", "runs", "paper_onset.toml")), path)   # resumes when present
    status = meanfield_command(["analyze", path, "--refine", args.resolution])
    if status:
        return status
    axis, values, names = classified_points(path)
    located, _ = sweep_bifurcations(path, values, names)
    print(located_table(axis, located))
    results = mf.sweep_results(path)
    fig = class_bifurcation(results, located=located)
    fig.set_size_inches(8.0, 3.8)
    fig.suptitle(sweep_caption(results), x=0.01, ha="left", fontsize=9)
    output = os.path.join(args.out, "onset_classes.png")
    fig.savefig(output, dpi=200)
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
