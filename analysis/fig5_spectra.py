"""Figure 5 of Poc-López & Aguilera: power spectrum (raw as the reference computes it, docs/model.md §7.2, and
Welch), and autocorrelation of m^{o,se}_1 over the recorded steps at chosen β_o, with the automatic class.

Usage: python analysis/fig5_spectra.py [--betas 1.26405 1.3 2.5] [--out figures] [--steps N --transient T]
"""
import argparse
import os

import meanfield as mf
from meanfield.analysis import classify
from meanfield.plots.trajectory import spectrum_and_acf


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--betas", type=float, nargs="+", default=[1.26405, 1.3, 2.5])
    parser.add_argument("--steps", type=int, default=60_000)
    parser.add_argument("--transient", type=int, default=20_000)
    parser.add_argument("--out", default="figures")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for beta in args.betas:
        traj = mf.simulate(mf.presets.paper(beta_o=beta), args.steps, args.transient, record=("mo_se",),
                           lyapunov=2)
        result = classify(traj)
        title = rf"$\beta_o = {beta:g}$: {result.label}" + (f" (period {result.period})" if result.period else "")
        fig = spectrum_and_acf(traj.mo_se[:, 0], title=title)
        for ext in ("png", "pdf"):
            fig.savefig(os.path.join(args.out, f"fig5_beta{beta:g}.{ext}"), dpi=200)
        print(f"beta_o = {beta:g}: {result.label}; {args.out}/fig5_beta{beta:g}.png")


if __name__ == "__main__":
    main()
