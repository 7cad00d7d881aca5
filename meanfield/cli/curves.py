"""``meanfield curves STUDY.toml -o OUT.h5``: a curve study (docs/bifurcations.md §12) — two-parameter bifurcation
curves and Arnold tongues of one model (:mod:`meanfield.studies.curve_study`)."""
from __future__ import annotations

import os


def register(sub, parents):
    p = sub.add_parser("curves", parents=parents, help="continue bifurcation curves and Arnold tongues in two "
                                                      "parameters",
                       description="For every [[curve]] and [[tongue]] of a study file, locate the point along the "
                                   "first parameter and continue it in the second (docs/bifurcations.md §10-§12); "
                                   "write an HDF5 file xarray reads and draw the figure. Interrupted studies "
                                   "resume with the curves still to do.")
    p.add_argument("study", help="study file (e.g. runs/studies/onset_curves.toml)")
    p.add_argument("-o", "--output", required=True, help="result file (.h5)")
    p.add_argument("--plot", metavar="FIG", help="draw the curves (PNG, PDF or SVG by suffix)")
    p.add_argument("--background", metavar="SWEEP",
                   help="a 2-D sweep file of the same two parameters whose tori's rotation numbers are drawn "
                        "under the curves (with --plot)")
    p.add_argument("--force", action="store_true", help="replace an existing result file")
    p.set_defaults(run=run)


def run(args):
    from ..errors import ConfigError
    from ..progress import sigterm_interrupts
    from ..studies.curve_study import load_curve_study, run_curve_study
    from . import check_study_output, progress_enabled, report
    study = load_curve_study(args.study)
    check_study_output(args)
    if args.background and not args.plot:
        raise ConfigError(f"--background {args.background!r} is not allowed without --plot")
    if args.background and not os.path.isfile(args.background):
        raise ConfigError(f"--background {args.background!r} is not allowed: no such file")
    with sigterm_interrupts():
        dataset = run_curve_study(study, args.output, progress=progress_enabled(args))
    for name, kind, values in zip(dataset.special_curve.values, dataset.special_kind.values,
                                  dataset.special_values.values):
        report(args, f"{name}: {kind} at {dataset.parameter.values[0]} = {values[0]:.10f}, "
                     f"{dataset.parameter.values[1]} = {values[1]:.10f}")
    report(args, f"wrote {args.output}: {dataset.sizes['curve']} curves")
    if args.plot:
        from ..plots.curves import study_figure
        from ..plots.data import model_caption
        sweep = None
        if args.background:
            from ..sweeps.results.dataset import sweep_results
            sweep = sweep_results(args.background)
        title = model_caption(study.model.to_dict(), swept=study.parameters)
        study_figure(dataset, sweep, title).savefig(args.plot, dpi=200)
        report(args, f"wrote {args.plot}")
