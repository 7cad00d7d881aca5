"""``meanfield onset STUDY.toml -o OUT.h5``: the onset study (docs/onset.md) — the first bifurcation of the rest
cycle over features, context lengths and weight seeds (:mod:`meanfield.studies.onset_scan`)."""
from __future__ import annotations

import os


def register(sub, parents):
    p = sub.add_parser("onset", parents=parents, help="locate the onset of oscillation over M, L and weight seeds",
                       description="For every (M, L, seed) of a study file, locate the first bifurcation of the "
                                   "random preset's rest cycle along beta_o from its Floquet multipliers "
                                   "(docs/onset.md); write an HDF5 file xarray reads, print the table of beta_c "
                                   "(mean +- SE over seeds) and draw the figure. Interrupted studies resume.")
    p.add_argument("study", help="study file (e.g. runs/studies/onset_scaling.toml)")
    p.add_argument("-o", "--output", required=True, help="result file (.h5)")
    p.add_argument("--plot", metavar="FIG", help="draw beta_c against M, one line per L (PNG, PDF, ... by suffix)")
    p.add_argument("--force", action="store_true", help="replace an existing result file")
    p.set_defaults(run=run)


def run(args):
    import signal

    from ..errors import ConfigError
    from ..studies.onset_scan import load_study, onset_table, run_study
    from . import progress_enabled, report
    study = load_study(args.study)
    if os.path.exists(args.output) and not args.force:
        raise ConfigError(f"--output {args.output!r} is not allowed: the file exists (use --force to replace it)")
    if args.plot and os.path.splitext(args.plot)[1].lower() not in (".png", ".pdf", ".svg"):
        raise ConfigError(f"--plot {args.plot!r} is not allowed: the suffix must be .png, .pdf or .svg")
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)   # SIGTERM stops like Ctrl-C
    try:
        dataset = run_study(study, args.output, progress=progress_enabled(args))
    finally:
        signal.signal(signal.SIGTERM, previous)
    report(args, onset_table(dataset))
    report(args, f"wrote {args.output}")
    if args.plot:
        from ..plots.onset import onset_figure
        onset_figure(dataset, args.plot)
        report(args, f"wrote {args.plot}")
