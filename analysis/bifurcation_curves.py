"""The rest cycle's Neimark–Sacker curve of the paper model over a β_att × β_o phase diagram
(docs/bifurcation_curves.png, docs/bifurcations.md §10): the curve solid where supercritical, dashed where
subcritical, its 1:4 resonance and Chenciner point marked, the sweep's classes as the pale background.

Usage: python analysis/bifurcation_curves.py FILE [--out figures]
FILE is a sweep of runs/phase_diagram.toml (or of a coarser grid of it). Writes OUT/bifurcation_curves.png
(about a minute on 2 cores, after the sweep).
"""
import argparse
import os

import meanfield as mf
from meanfield.plots.curves import curves_figure
from meanfield.plots.data import model_caption


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--out", default="figures")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    model = mf.presets.paper()
    point, = mf.bifurcations(model, "beta_o", (1.24, 1.245))
    curve = mf.bifurcation_curve(model, point, "beta_att", (0.0, 7.0))
    for special in curve.special:
        print(f"{special.kind}: beta_o = {special.values[0]:.10f}, beta_att = {special.values[1]:.10f}")
    fig = curves_figure([("rest cycle: Neimark–Sacker", curve, "#CC0000")], mf.sweep_results(args.file),
                        title=model_caption(model.to_dict(), swept=("beta_o", "beta_att")))
    fig.axes[0].set_xlim(-0.1, 7.1)
    fig.savefig(os.path.join(args.out, "bifurcation_curves.png"), dpi=200)


if __name__ == "__main__":
    main()
