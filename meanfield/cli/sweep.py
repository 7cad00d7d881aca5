"""``meanfield sweep RUN.toml``: run a parameter sweep on Dask into a resumable HDF5 file (docs/storage.md §3)."""
from __future__ import annotations

import os


def register(sub):
    p = sub.add_parser("sweep", help="run a parameter sweep from a run file (resumable HDF5)",
                       description="Run the sweep of a TOML run file (runs/*.toml) on Dask: a local cluster of "
                                   "single-threaded processes by default, an existing scheduler, or SLURM. An "
                                   "existing output with the same run spec is resumed (only missing points "
                                   "are computed). External schedulers and workers need meanfield installed.")
    p.add_argument("run_file", help="TOML run file")
    p.add_argument("-o", "--output", help="output HDF5 file (default results/<run file name>.h5)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--resume", action="store_true", help="resume an existing output (the default when it exists "
                                                            "and matches the run spec)")
    mode.add_argument("--force", action="store_true", help="overwrite an existing output")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="use a running Dask scheduler (tcp://host:port)")
    where.add_argument("--slurm", action="store_true", help="start a dask-jobqueue SLURMCluster from [cluster]")
    p.add_argument("--workers", type=int, help="local worker processes (default: cores) or SLURM jobs")
    p.add_argument("--plot", metavar="PNG", help="also write the bifurcation diagram (1-D grids: density and class-coloured) or the class map (2-D)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def run(args):
    from ..sweeps.run import sweep
    from ..sweeps.runfile import load_run
    from ..sweeps.store import check_output
    spec = load_run(args.run_file)
    output = args.output or os.path.join("results", os.path.splitext(os.path.basename(args.run_file))[0] + ".h5")
    if args.plot:
        check_output(args.plot, overwrite=True, make_dirs=True)
    path = sweep(spec, output, scheduler=args.scheduler, slurm=args.slurm, workers=args.workers,
                 resume=True if args.resume else None, overwrite=args.force, progress=not args.no_progress)
    print(f"wrote {path}: {spec.n_points} points of {' x '.join(a.name for a in spec.grid_axes)}")
    if args.plot:
        if os.path.dirname(args.plot):
            os.makedirs(os.path.dirname(args.plot), exist_ok=True)
        if spec.finite is not None:
            from ..plots.sweep import finite_error_figure
            fig = finite_error_figure(path)
        elif len(spec.axes) == 1:
            from ..plots.sweep import bifurcation_figure
            fig = bifurcation_figure(path)
        else:
            from ..plots.sweep import class_map
            fig = class_map(path)
        fig.savefig(args.plot, dpi=200)
        print(f"wrote {args.plot}")
