"""``meanfield simulate``: one parameter point of a preset, written to HDF5 (+ optional figure)."""
from __future__ import annotations


def register(sub, parents):
    p = sub.add_parser("simulate", parents=parents, help="simulate one parameter point and write a trajectory file",
                       description="Simulate the mean-field map at one parameter point (docs/model.md §3) and write "
                                   "the recorded observables to an HDF5 file.")
    p.add_argument("--preset", default="paper", help="model preset: paper (default), reference, random")
    p.add_argument("--beta", "--beta-o", dest="beta_o", type=float, default=None, help="β_o (default: preset's)")
    p.add_argument("--set", dest="overrides", action="append", metavar="KEY=VALUE",
                   help="a preset knob (reference: seed, n_features, pe_bits, context, semantic_bits, segments, "
                        "correlations, gaussian_scale, pe_mode, reorder_weights) or a parameter (beta_att, gamma, "
                        "epsilon, scaling_att, scaling_o, control.kp, ...)")
    p.add_argument("--start", choices=("checkpoint", "token", "correlation"), default="checkpoint",
                   help="checkpoint (the preset's, or --checkpoint FILE; default), token (x0 = W^o[--index] with its "
                        "PE bits reset) or correlation (the correlation index --index)")
    p.add_argument("--checkpoint", metavar="FILE.npz", help="start from this checkpoint (att_window, pe_window)")
    p.add_argument("--index", type=int, default=0, help="token row or correlation index (default 0)")
    p.add_argument("--steps", type=int, default=20_000, help="iterations (default 20000)")
    p.add_argument("--transient", type=int, default=0, help="iterations not recorded (default 0)")
    p.add_argument("--record-every", type=int, default=1, help="record every k-th iteration")
    p.add_argument("--lyapunov", nargs="?", const=True, default=False, type=int, metavar="K",
                   help="compute the Lyapunov spectrum (all L·M exponents, or the K leading ones)")
    p.add_argument("-o", "--output", default="trajectory.h5", help="output HDF5 file (default trajectory.h5)")
    p.add_argument("--plot", metavar="PNG", help="also save a trajectory figure (time series and phase plane; "
                                                 ".png, .pdf, .svg)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.set_defaults(run=run)


def run(args):
    from ..errors import ConfigError
    from ..model.layout import DIVERGENCE_BOUND
    from ..model.spec import require_int
    from ..options import Compute, Record
    from ..presets import preset
    from ..simulation import simulate
    from ..sweeps.config.tables import START_KEYS, parse_start
    from ..sweeps.store import check_output, write_trajectory
    from ..sweeps.store.provenance import record
    from . import parse_overrides, progress_enabled, report
    if args.checkpoint and args.start != "checkpoint":
        raise ConfigError(f"--checkpoint {args.checkpoint!r} is not allowed with --start {args.start}")
    overrides = parse_overrides(args.overrides)
    if args.beta_o is not None:
        overrides["beta_o"] = args.beta_o
    model = preset(args.preset, **overrides)
    table = {"kind": args.start, "file": args.checkpoint, "row": args.index, "index": args.index}
    start = parse_start({k: v for k, v in table.items() if k in START_KEYS[args.start] and v is not None})
    start = start.state(model)            # the start (None: the model's checkpoint), checked against the model
    check_output(args.output, args.force)     # fail before computing; nothing is created yet
    if args.plot:
        from ..plots.style import check_figure_path
        check_figure_path(args.plot)
    traj = simulate(model, args.steps, args.transient, start=start, lyapunov=args.lyapunov,
                    record=Record(every=require_int("record_every", args.record_every, 1)),
                    compute=Compute(progress=None if progress_enabled(args) else False))
    write_trajectory(args.output, traj, overwrite=True, record=record("simulate"))
    report(args, f"wrote {args.output}: {args.steps - args.transient} steps at beta_o = {model.beta_o}")
    if traj.diverged_at is not None and traj.diverged_at >= 0:
        report(args, f"divergent: the PID loop passed the bound {DIVERGENCE_BOUND:g} at step {traj.diverged_at} and "
                     "was stopped; records and exponents from there on are NaN (docs/model.md §5.3)")
    if traj.lyapunov is not None:
        report(args, "lyapunov: " + " ".join(f"{x:.4f}" for x in traj.lyapunov))
    if args.plot:
        from ..plots.trajectory import trajectory_figure
        trajectory_figure(traj).savefig(args.plot, dpi=200)
        report(args, f"wrote {args.plot}")
