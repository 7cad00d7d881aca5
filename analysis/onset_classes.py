"""The onset of chaos located by bisection (docs/onset_classes.png, README "Attractor classes and located
transitions"): the sweep of runs/paper_onset.toml, `meanfield analyze --refine 1e-5`, then the class-coloured
diagram of the grid and the refined points.

Usage: python analysis/onset_classes.py [--out figures] [--results results] [--resolution 1e-5]
Runs (or resumes) the sweep into RESULTS/paper_onset.h5, refines every class change to the resolution, prints
the located transitions and writes OUT/onset_classes.png — `meanfield plot classes RESULTS/paper_onset.h5`.
`--out docs` rebuilds the README's figure (a few minutes on 2 cores).
"""
import argparse
import os
import sys

import meanfield as mf
from meanfield.cli import main as meanfield_command

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
    return (meanfield_command(["analyze", path, "--refine", args.resolution])
            or meanfield_command(["plot", "classes", path, "-o", os.path.join(args.out, "onset_classes.png")]))


if __name__ == "__main__":
    sys.exit(main())
