"""``meanfield sweep RUN.toml``: run a parameter sweep on Dask into a resumable HDF5 file (docs/storage.md §3)."""
from __future__ import annotations

import os
import sys
import time
from contextlib import nullcontext
from functools import partial


def register(sub, parents):
    p = sub.add_parser("sweep", parents=parents, help="run a parameter sweep from a run file (resumable HDF5)",
                       description="Run the sweep of a TOML run file (a path, or a shipped run by name, e.g. "
                                   "paper_fig3_quick) on Dask: a local cluster of single-threaded processes by "
                                   "default, an existing scheduler, or SLURM (jobs "
                                   "submitted from here, or inside one allocation with srun). An existing output "
                                   "with the same run spec is resumed (only missing points are computed). "
                                   "External schedulers and workers need meanfield installed. Exit status: 2 for "
                                   "bad input, 3 when the cluster gives the sweep no progress (the watchdog).")
    p.add_argument("run_file", help="TOML run file, or the name of a shipped one (meanfield runs lists them)")
    p.add_argument("-o", "--output", help="output HDF5 file (default results/<run file name>.h5)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="change a key of the run file, dotted as in TOML, the value a TOML value: --set steps=2000 "
                        "--set grid.beta_o.num=41 --set model.beta_att=2.0 --set 'model.preset=\"paper\"'")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--resume", action="store_true", help="resume an existing output (the default when it exists "
                                                            "and matches the run spec)")
    mode.add_argument("--force", action="store_true", help="overwrite an existing output")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="use a running Dask scheduler (tcp://host:port)")
    where.add_argument("--slurm", action="store_true", help="submit SLURM jobs from [cluster] (dask-jobqueue); also "
                                                            "without this flag when [cluster] says kind = 'slurm'")
    where.add_argument("--runner", choices=["slurm"], help="inside one allocation: srun -n K meanfield sweep ... "
                                                            "--runner slurm (rank 0 scheduler, 1 client, the rest "
                                                            "workers)")
    p.add_argument("--workers", type=int, help="local worker processes (default: cores) or SLURM jobs")
    p.add_argument("--plot", metavar="PNG", help="also write the bifurcation diagram (1-D grids: density and "
                                                 "class-coloured), the class map (2-D) or the finite-N error")
    p.add_argument("--dry-run", action="store_true",
                   help="print the points, the file size and the time measured on this machine; compute and write "
                        "nothing")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def _dry_run(args, spec, output, workers, local) -> None:
    import numpy as np
    import psutil

    imported = time.time() - psutil.Process().create_time()     # this command's start: a sweep's is the same

    from ..errors import BackendError, StoreError
    from ..sweeps.execute.cluster import local_cluster
    from ..sweeps.execute.estimate import (
        basin_seconds,
        chain_seconds,
        duration,
        seconds_per_point,
        size,
        startup_seconds,
        task_seconds,
        total_seconds,
    )
    from ..sweeps.execute.plan import plan
    from ..sweeps.store import SWEEP_KIND, differences, done_flags, raw_nbytes, reading, sweep_nbytes, sweep_state
    from . import report
    axes = ", ".join(f"{a.name}: {len(a.values)} values from {a.values[0]:g} to {a.values[-1]:g}"
                     for a in spec.grid_axes)
    todo = spec.n_points
    done = np.zeros(spec.n_points, dtype=bool)
    state = "a new file"
    if os.path.exists(output) and not args.force:
        held = sweep_state(output)
        if held["kind"] != SWEEP_KIND or differences(held, spec):
            raise StoreError(f"output {output!r} exists and holds another run (or is no sweep file): choose another "
                             "path or replace it (--force)")
        todo -= held["done"]
        if todo:
            with reading(output) as f:
                done = done_flags(f)
        state = f"exists with {held['done']} points done: {todo} to compute"
    exponents = f", {spec.lyapunov} Lyapunov exponents" if spec.lyapunov else ""
    report(args, f"{spec.name}: {spec.n_points} points ({axes})")
    report(args, f"  per point: {spec.steps} steps, {spec.transient} transient{exponents}")
    allocated, bound = sweep_nbytes(spec), raw_nbytes(spec)
    compressed = f"at most {size(bound)}: compressed chunks of up to {spec.chunk} points, {size(allocated)} " \
        "when created" if allocated < bound else size(bound)
    report(args, f"  output: {output}, {compressed} ({state})")
    if spec.curves is not None:
        report(args, f"  then the {len(spec.curves.curve_names())} curves of [curves], one task per curve or tongue "
                     "(not in the time below: a continuation's cost is not known before it runs)")
    if todo:
        if not args.quiet:
            print("meanfield sweep: measuring one chunk on this machine (the first time, this compiles the kernels: "
                  "up to a minute)", file=sys.stderr)
        try:
            per_point = seconds_per_point(spec)
        except BackendError as exc:
            report(args, f"  time: not estimated ({exc})")
        else:
            chunk = min(spec.chunk, spec.n_points)
            chain = chain_seconds(spec, workers)
            census = f", then the attractors' chain {duration(chain)}" if spec.attractors else ""
            basins = basin_seconds(spec, workers)
            census += f", then the basin map {duration(basins)}" if spec.basins else ""
            tasks = plan(spec, done, workers)
            cost = task_seconds(spec, tasks, partial(local_cluster, workers) if local else None)
            startup = startup_seconds(spec) if local else None
            if startup is not None:     # the local cluster's start and close, and this command's imports
                startup += cost.cluster + imported
            start = (f", and {duration(startup)} to import, start the workers and close them; excludes compilation"
                     if startup is not None else "; excludes worker start-up and compilation")
            points = total_seconds(todo, len(tasks), per_point, cost, workers)
            total = points + chain + basins + (startup or 0.0)
            report(args, f"  time: {duration(total)} on {workers} "
                         f"worker(s) ({per_point:.2g} s per point on one idle core of this machine, measured on a "
                         f"chunk of {chunk} points as the sweep runs it{census}{start})")
            report(args, f"  made of: {len(tasks)} tasks × {cost.client * 1e3:.2g} ms on the client (Dask, the "
                         f"write of the chunk and its journal record; serial) + ({todo} points × {per_point:.2g} s "
                         f"+ {len(tasks)} tasks × {cost.worker * 1e3:.2g} ms packing) / {workers} worker(s)"
                         f"{' + the start-up' if startup is not None else ''}"
                         f"{' + the chain' if spec.attractors else ''}{' + the basin map' if spec.basins else ''}; "
                         f"per-task costs timed on {cost.timed} tasks")
    report(args, "dry run: nothing was computed or written")


def run(args):
    from ..errors import ConfigError
    from ..sweeps.config.runfile import load_run
    from ..sweeps.config.where import Place, where_to_compute
    from ..sweeps.execute.run import sweep
    from ..sweeps.execute.slurm import slurm_runner
    from ..sweeps.store import check_output
    from . import parse_overrides, progress_enabled, report
    spec = load_run(args.run_file, **parse_overrides(args.overrides))
    if args.runner and args.workers:
        raise ConfigError(f"--workers {args.workers} is not allowed with --runner slurm: the allocation's tasks "
                          "are the workers (srun -n K gives K - 2)")
    output = args.output or os.path.join("results", os.path.splitext(os.path.basename(args.run_file))[0] + ".h5")
    if args.plot:
        from ..plots.style import check_figure_path
        check_figure_path(args.plot)
        check_output(args.plot, overwrite=True, make_dirs=True)
    if args.dry_run:
        where = where_to_compute(spec.cluster_spec, Place(scheduler=args.scheduler, slurm=args.slurm,
                                                          workers=args.workers))
        return _dry_run(args, spec, output, where.workers or 1, local=where.kind == "local")
    if args.resume and not os.path.exists(output):
        raise ConfigError(f"--resume: output {output!r} does not exist, so there is nothing to resume (leave out "
                          "--resume to start it)")
    # inside an allocation only rank 1 (the client) gets past slurm_runner; the others serve and exit
    with slurm_runner(spec.cluster_spec) if args.runner else nullcontext((None, None)) as (client, _):
        place = Place(client=client, scheduler=args.scheduler, slurm=args.slurm, workers=args.workers)
        path = sweep(spec, output, place=place, resume=True if args.resume else None, overwrite=args.force,
                     progress=progress_enabled(args))
    report(args, f"wrote {path}: {spec.n_points} points of {' x '.join(a.name for a in spec.grid_axes)}")
    if args.plot:
        if os.path.dirname(args.plot):
            os.makedirs(os.path.dirname(args.plot), exist_ok=True)
        from ..plots import sweep as figures
        from ..sweeps.results.dataset import sweep_results
        if spec.finite is not None:
            fig = figures.finite_error_figure(path)
        elif len(spec.axes) == 1:
            fig = figures.bifurcation_figure(sweep_results(path))
        else:
            fig = figures.class_map(sweep_results(path))
        fig.savefig(args.plot, dpi=200)
        report(args, f"wrote {args.plot}")
