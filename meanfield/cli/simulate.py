"""``meanfield simulate``: one parameter point of a preset, written to HDF5 (+ optional PNG)."""
from __future__ import annotations


def register(sub):
    p = sub.add_parser("simulate", help="simulate one parameter point and write a trajectory file",
                       description="Simulate the mean-field map at one parameter point (docs/model.md §3) and write "
                                   "the recorded observables to an HDF5 file.")
    p.add_argument("--preset", default="paper", help="model preset (default: paper)")
    p.add_argument("--beta", "--beta-o", dest="beta_o", type=float, default=None, help="β_o (default: preset's)")
    p.add_argument("--set", dest="overrides", action="append", metavar="KEY=VALUE",
                   help="override a model parameter (beta_att, gamma, epsilon, scaling_att, scaling_o, control.kp, ...)")
    p.add_argument("--steps", type=int, default=20_000, help="iterations (default 20000)")
    p.add_argument("--transient", type=int, default=0, help="iterations not recorded (default 0)")
    p.add_argument("--record-every", type=int, default=1, help="record every k-th iteration")
    p.add_argument("--lyapunov", nargs="?", const=True, default=False, type=int, metavar="K",
                   help="compute the Lyapunov spectrum (all L·M exponents, or the K leading ones)")
    p.add_argument("-o", "--output", default="trajectory.h5", help="output HDF5 file (default trajectory.h5)")
    p.add_argument("--plot", metavar="PNG", help="also save a trajectory figure")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.set_defaults(run=run)


def run(args):
    from ..presets import preset
    from ..simulate import simulate
    from ..sweeps.store import check_output, write_trajectory
    from . import parse_overrides
    overrides = parse_overrides(args.overrides)
    if args.beta_o is not None:
        overrides["beta_o"] = args.beta_o
    model = preset(args.preset, **overrides)
    check_output(args.output, args.force)     # fail before computing; nothing is created yet
    traj = simulate(model, args.steps, args.transient, lyapunov=args.lyapunov, record_every=args.record_every)
    write_trajectory(args.output, traj, overwrite=True)
    print(f"wrote {args.output}: {args.steps - args.transient} steps at beta_o = {model.beta_o}")
    if traj.lyapunov is not None:
        print("lyapunov: " + " ".join(f"{x:.4f}" for x in traj.lyapunov))
    if args.plot:
        from ..plots.trajectory import trajectory_figure
        trajectory_figure(traj).savefig(args.plot, dpi=150)
        print(f"wrote {args.plot}")
