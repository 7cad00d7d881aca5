"""Continued orbits of the paper model over its bifurcation diagram (docs/bifurcation_branches.png, README
"Attractor classes and located transitions"): the rest cycle through its Neimark–Sacker point and the period-28
cycle through its period doublings and folds, stable solid, unstable dashed, with max|μ| below
(docs/bifurcations.md §5).

Usage: python analysis/bifurcation_branches.py [--out figures]
Prints the located bifurcations and writes OUT/bifurcation_branches.png (about a minute on 2 cores).
"""
import argparse
import os

import numpy as np

import meanfield as mf
from meanfield.plots.branches import branches_figure
from meanfield.plots.data import model_caption


def settled_state(beta, steps):
    traj = mf.simulate(mf.presets.paper(beta_o=beta), steps, steps - 1, record=("att",))
    return traj.final_state


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="figures")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    betas = np.concatenate([np.linspace(1.24, 1.25, 101), np.linspace(1.266, 1.275, 181)])
    batch = mf.simulate_batch(mf.presets.paper(), 60_000, 59_200, parameters={"beta_o": betas}, record=("att",))
    diagram = (betas, batch.records["att"][:, :, 0])
    found, branches = [], []
    cycle_28 = settled_state(1.27, 100_000)
    for name, interval, state, period, colour in (
            ("rest cycle (period 4)", (1.24, 1.25), None, None, "tab:blue"),
            ("period-28 cycle", (1.27, 1.2745), cycle_28, 28, "tab:red"),
            ("period-28 cycle", (1.27, 1.2665), cycle_28, 28, "tab:red")):
        points = mf.bifurcations(mf.presets.paper(), "beta_o", interval, state=state, period=period,
                                 transient=20_000 if state is None else 0)
        for point in points:
            rotation = "" if point.rotation_number is None else f", rotation number {point.rotation_number:.6f}"
            print(f"{name}: {point.kind} at beta_o = {point.value:.10f}{rotation}")
        found += points
        branches.append((name, points.branch, colour))
    fig = branches_figure(branches, found, diagram=diagram, windows=[(1.2400, 1.2500), (1.2660, 1.2750)],
                          title=model_caption(mf.presets.paper().to_dict(), ["beta_o"])
                          + "; grey: 800 steps of the simulated orbit per β_o")
    path = os.path.join(args.out, "bifurcation_branches.png")
    fig.savefig(path, dpi=200)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
