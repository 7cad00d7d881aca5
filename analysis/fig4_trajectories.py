"""Figure 4 of Poc-López & Aguilera: trajectories of m^{o,se}_1 over windows of 250/350/5000 recorded steps
and the phase planes (m^{o,se}_1, m^{o,se}_2), (a_1, a_3), at chosen β_o (docs/model.md §1.3).

Usage: python analysis/fig4_trajectories.py [--betas 1.255 1.26405 1.266 1.28 1.3 1.4] [--out figures]
       [--steps 175000 --transient 100000]   (the paper's lengths; the defaults are shorter)
"""
import argparse
import os

import meanfield as mf
from meanfield.plots.trajectory import phase_planes, trajectory_panels


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--betas", type=float, nargs="+", default=[1.255, 1.26405, 1.266, 1.28, 1.3, 1.4])
    parser.add_argument("--steps", type=int, default=40_000)
    parser.add_argument("--transient", type=int, default=20_000)
    parser.add_argument("--out", default="figures")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for beta in args.betas:
        traj = mf.simulate(mf.presets.paper(beta_o=beta), args.steps, args.transient, record=("mo_se", "att"))
        for name, fig in (("traj", trajectory_panels(traj)), ("planes", phase_planes(traj))):
            for ext in ("png", "pdf"):
                fig.savefig(os.path.join(args.out, f"fig4_{name}_beta{beta:g}.{ext}"), dpi=200)
        print(f"beta_o = {beta:g}: {args.out}/fig4_*_beta{beta:g}.png")


if __name__ == "__main__":
    main()
