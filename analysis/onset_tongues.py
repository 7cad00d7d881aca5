"""The onset region of the paper model in (β_att, β_o) (docs/onset_tongues.png, docs/bifurcations.md §11): the rest
cycle's Neimark–Sacker curve with its 1:4 resonance and Chenciner point, the 1:4 Arnold tongue traced from a
cycle locked inside it (its two sides meet at the resonance), over the rotation numbers of the tori a sweep found.

Usage: python analysis/onset_tongues.py FILE [--out figures]
FILE is a sweep of runs/onset_tongues.toml. Writes OUT/onset_tongues.png and prints the codim-2 points and the
tongue's tip (about a minute on 2 cores, after the sweep).
"""
import argparse
import os

import meanfield as mf
from meanfield.plots.curves import curves_figure
from meanfield.plots.data import model_caption

#: A β_o inside the 1:4 tongue at the paper's β_att = 2.2 (the tongue spans 1.24949 … 1.25102 there).
LOCKED_BETA_O = 1.2502562


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--out", default="figures")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    model = mf.presets.paper()
    point, = mf.bifurcations(model, "beta_o", (1.24, 1.245))
    ns = mf.bifurcation_curve(model, point, "beta_att", (0.5, 7.0))
    for special in ns.special:
        print(f"{special.kind}: beta_o = {special.values[0]:.10f}, beta_att = {special.values[1]:.10f}")
    locked = model.replace(beta_o=LOCKED_BETA_O)
    state = mf.simulate(locked, 200_000, record="att", progress=False).final_state
    tongue = mf.arnold_tongue(locked, state, interval=(0.5, 7.0))
    print(tongue)
    sides = [("1:4 tongue (fold curves)", tongue.sides[0], "#1F4E9C"), (None, tongue.sides[1], "#1F4E9C")]
    fig = curves_figure([("rest cycle: Neimark–Sacker", ns, "#CC0000"), *sides], mf.sweep_results(args.file),
                        title=model_caption(model.to_dict(), swept=("beta_o", "beta_att")), background="rotation")
    fig.savefig(os.path.join(args.out, "onset_tongues.png"), dpi=200)


if __name__ == "__main__":
    main()
