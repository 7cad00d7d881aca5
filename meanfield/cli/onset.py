"""``meanfield onset STUDY.toml -o OUT.h5``: the onset study (docs/onset.md) — the rest cycle's stability along β_o
over features, context lengths and weight seeds (:mod:`meanfield.studies.onset_scan`)."""
from __future__ import annotations


def register(sub, parents):
    p = sub.add_parser("onset", parents=parents, help="follow the rest cycle's stability over M, L and weight seeds",
                       description="For every (M, L, seed) of a study file, follow the random preset's rest cycle "
                                   "along beta_o by pseudo-arclength continuation and locate its first loss of "
                                   "stability and kind, its crossover and its mirror cycle's birth (docs/onset.md); "
                                   "write an HDF5 file xarray reads, print the tables (mean +- SE over seeds) and "
                                   "draw the figure. Interrupted studies resume.")
    p.add_argument("study", help="study file (e.g. runs/studies/onset_scaling.toml)")
    p.add_argument("-o", "--output", required=True, help="result file (.h5)")
    p.add_argument("--plot", metavar="FIG",
                   help="draw beta_c and the crossover against M, one line per L (PNG, PDF, ... by suffix)")
    p.add_argument("--force", action="store_true", help="replace an existing result file")
    p.set_defaults(run=run)


def run(args):
    from ..progress import sigterm_interrupts
    from ..studies.onset_scan import load_study, onset_table, run_study
    from . import check_study_output, progress_enabled, report
    study = load_study(args.study)
    check_study_output(args)
    with sigterm_interrupts():
        dataset = run_study(study, args.output, progress=progress_enabled(args))
    report(args, onset_table(dataset))
    report(args, f"wrote {args.output}")
    if args.plot:
        from ..plots.onset import onset_figure
        onset_figure(dataset, args.plot)
        report(args, f"wrote {args.plot}")
