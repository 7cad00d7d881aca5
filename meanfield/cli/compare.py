"""``meanfield compare RUN_A.h5 RUN_B.h5 ...``: compare sweeps of PID-controlled variants side by side
(docs/model.md §5.4)."""
from __future__ import annotations

import os


def register(sub):
    p = sub.add_parser("compare", help="compare sweep files of PID-controlled variants (figures + table)",
                       description="Classify every point of the given sweep files and compare them: side-by-side "
                                   "bifurcation diagrams of the 1-D beta_o sweeps (same grid), lambda_1 overlaid, "
                                   "class maps of the 2-D (beta_o, gain) sweeps, and a table of class fractions, "
                                   "representation collapse, robustness to start perturbations and integral "
                                   "wind-up per variant (runs/pid_*.toml).")
    p.add_argument("runs", nargs="+", metavar="RUN.h5", help="sweep files written by `meanfield sweep`")
    p.add_argument("-o", "--output", default="results/pid_compare",
                   help="output prefix: PREFIX.png, PREFIX_fractions.png, PREFIX.md, PREFIX.csv "
                        "(default results/pid_compare)")
    p.add_argument("--probe", type=int, default=12,
                   help="beta_o values per variant re-simulated for robustness and wind-up (default 12)")
    p.add_argument("--seed", type=int, default=0, help="seed of the perturbation directions")
    p.set_defaults(run=run)


def run(args):
    from ..model.spec import require_int
    from ..plots.pid import comparison_figure, fractions_figure
    from ..studies.comparison import compare, table_csv, table_markdown
    probe = require_int("--probe", args.probe, 1)
    lines, rows, maps = compare(args.runs, probe=probe, seed=args.seed)
    directory = os.path.dirname(os.path.abspath(args.output))
    os.makedirs(directory, exist_ok=True)
    written = [args.output + ".png"]
    comparison_figure(lines, rows, maps).savefig(written[0], dpi=150)
    if rows:
        text = table_markdown(rows)
        with open(args.output + ".md", "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        table_csv(rows, args.output + ".csv")
        fractions_figure(rows).savefig(args.output + "_fractions.png", dpi=150)
        written += [args.output + ".md", args.output + ".csv", args.output + "_fractions.png"]
        print(text)
    print("wrote " + ", ".join(written))
