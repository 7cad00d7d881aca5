"""Figure 3 of Poc-López & Aguilera: the bifurcation diagram of m^{o,se}_1 over β_o, as orbit density and
coloured by the automatic attractor class, with the Lyapunov exponents below (docs/model.md §4, §7.1).

Usage: python analysis/fig3_bifurcation.py [quick|full|zoom|zoom_quick] [--out figures] [--results results]
Runs the sweep of runs/paper_fig3[_zoom][_quick].toml if its result file is missing (or resumes it), classifies
it and writes OUT/fig3_<variant>.png and .pdf — the same figure as `meanfield sweep RUN.toml --plot PNG`.
`quick --out docs` rebuilds the README's top image. quick: about a minute on 2 cores; full: hours on 2 cores
(use a cluster, README "Clusters and GPUs").
"""
import argparse
import os

import meanfield as mf
from meanfield.plots.sweep import bifurcation_figure
from meanfield.sweeps.results.labels import analyze

RUNS = {"quick": "paper_fig3_quick", "full": "paper_fig3", "zoom": "paper_fig3_zoom",
        "zoom_quick": "paper_fig3_zoom_quick"}
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", nargs="?", default="quick", choices=sorted(RUNS))
    parser.add_argument("--out", default="figures")
    parser.add_argument("--results", default="results")
    args = parser.parse_args()
    name = RUNS[args.variant]
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.results, exist_ok=True)
    path = os.path.join(args.results, f"{name}.h5")
    mf.sweep(mf.load_run(os.path.join(HERE, "..", "runs", f"{name}.toml")), path)   # resumes when present
    fractions = analyze(path)
    fig = bifurcation_figure(path)
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(args.out, f"fig3_{args.variant}.{ext}"), dpi=200)
    print(f"{args.out}/fig3_{args.variant}.png; classes: "
          + ", ".join(f"{k} {v:.0%}" for k, v in fractions.items() if v > 0))


if __name__ == "__main__":
    main()
