"""``meanfield compare RUN_A.h5 RUN_B.h5 ...``: compare sweeps of PID-controlled variants side by side
(docs/model.md §5.4)."""
from __future__ import annotations

import os

#: File name stem of the outputs when ``-o`` names a directory.
STEM = "pid_compare"


def register(sub, parents):
    p = sub.add_parser("compare", parents=parents,
                       help="compare sweep files of PID-controlled variants (figures + table)",
                       description="Classify every point of the given sweep files and compare them: side-by-side "
                                   "bifurcation diagrams of the 1-D beta_o sweeps (same grid), lambda_1 overlaid, "
                                   "class maps of the 2-D (beta_o, gain) sweeps, and a table of class fractions, "
                                   "representation collapse, robustness to start perturbations and integral "
                                   "wind-up per variant (runs/pid_*.toml). Variants appear in a fixed order "
                                   "(none, P, PI, PD, PID, ...) with a fixed colour each, whatever the order of "
                                   "the arguments.")
    p.add_argument("runs", nargs="+", metavar="RUN.h5", help="sweep files written by `meanfield sweep`")
    p.add_argument("-o", "--output", default=os.path.join("results", STEM),
                   help="where to write: a PREFIX (writes PREFIX.png, PREFIX_fractions.png, PREFIX.md, PREFIX.csv) "
                        f"or an existing directory / a path ending in '/' (writes DIR/{STEM}.png, ...). "
                        f"Default results/{STEM}")
    p.add_argument("--probe", type=int, default=12,
                   help="beta_o values per variant re-simulated for robustness and wind-up (default 12)")
    p.add_argument("--seed", type=int, default=0, help="seed of the perturbation directions")
    p.set_defaults(run=run)


def output_prefix(output: str) -> str:
    """``-o``: a directory (existing, or written with a trailing separator) gets files named :data:`STEM`
    inside it; anything else is a prefix."""
    if output.endswith(("/", os.sep)) or os.path.isdir(output):
        return os.path.join(output, STEM)
    return output


def run(args):
    from ..model.spec import require_int
    from ..plots.pid import comparison_figure, fractions_figure
    from ..studies.comparison import compare, table_csv, table_markdown
    from . import progress_enabled, report
    probe = require_int("--probe", args.probe, 1)
    seed = require_int("--seed", args.seed, 0)
    prefix = output_prefix(args.output)
    lines, rows, maps = compare(args.runs, probe=probe, seed=seed, progress=progress_enabled(args))
    directory = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(directory, exist_ok=True)
    written = [prefix + ".png"]
    comparison_figure(lines, rows, maps).savefig(written[0], dpi=200)
    if rows:
        text = table_markdown(rows)
        with open(prefix + ".md", "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        table_csv(rows, prefix + ".csv")
        fractions_figure(rows).savefig(prefix + "_fractions.png", dpi=200)
        written += [prefix + ".md", prefix + ".csv", prefix + "_fractions.png"]
        report(args, text)
    report(args, "wrote " + ", ".join(written))
