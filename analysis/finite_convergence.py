"""Where the mean field holds (docs/finite_convergence.png, README "the finite-N network"): the finite-N token
network against the mean field started aligned with it (docs/model.md §6.3), over β_o and N.

Usage: python analysis/finite_convergence.py [--out figures] [--replicas 200] [--max-exponent 8]
Runs meanfield.studies.convergence.convergence_study at β_o = 0.5, 1, 1.26405, 1.5, 2, 2.5 and N_se = 990 …
99·10^max_exponent (binomial sampler, 45 steps, 200 replicas) and writes OUT/finite_convergence.png and .pdf;
`--out docs` rebuilds the README's figure (a few minutes on 2 cores).
"""
import argparse
import os

import meanfield as mf
from meanfield.plots.finite import finite_convergence_figure
from meanfield.studies.convergence import DEFAULT_BETAS, convergence_study, convergence_table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="figures")
    parser.add_argument("--replicas", type=int, default=200)
    parser.add_argument("--max-exponent", type=int, default=8, help="largest N_se = 99 * 10**max_exponent")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    sizes = tuple(99 * 10 ** k for k in range(1, args.max_exponent + 1))
    runs = convergence_study(mf.presets.paper(), DEFAULT_BETAS, sizes, replicas=args.replicas, progress=True)
    fig = finite_convergence_figure(runs, trajectory_beta=1.26405)
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(args.out, f"finite_convergence.{ext}"), dpi=200)
    for beta, (n_bits, error, _) in sorted(convergence_table(runs).items()):
        print(f"beta_o = {beta:g}: " + ", ".join(f"N={n:.0e} {e:.2g}" for n, e in zip(n_bits, error)))
    print(f"{args.out}/finite_convergence.png")


if __name__ == "__main__":
    main()
