"""``meanfield analyze RUN.h5``: classify every point of a sweep and write its ``analysis`` group
(docs/storage.md §4)."""
from __future__ import annotations


def register(sub, parents):
    p = sub.add_parser("analyze", parents=parents, help="classify the attractor of every point of a sweep file",
                       description="Decide the attractor class of every computed point from the evidence the "
                                   "sweep stored (period, 0-1 test, exponents, ...) and write the 'analysis' "
                                   "group. Thresholds can be changed without re-running the sweep.")
    p.add_argument("path", help="sweep file written by `meanfield sweep`")
    p.add_argument("--set", dest="overrides", action="append", metavar="KEY=VALUE",
                   help="decision threshold (fixed_point_amplitude, k_regular, k_chaotic, lyap_zero, z, bound)")
    p.set_defaults(run=run)


def run(args):
    import dataclasses

    from ..analysis import Thresholds
    from ..errors import ConfigError
    from ..model.spec import require_int
    from ..sweeps.labels import analyze
    from ..sweeps.lock import holder
    from ..sweeps.store import read_sweep
    from . import parse_overrides, report
    overrides = parse_overrides(args.overrides)
    known = {f.name for f in dataclasses.fields(Thresholds)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ConfigError(f"--set {unknown[0]} is not allowed: thresholds are {sorted(known)}")
    for key, value in overrides.items():
        if isinstance(value, (bool, str)):
            raise ConfigError(f"--set {key} = {value!r} is not allowed: must be a number")
    integers = {"min_length", "chaos01_n_c", "chaos01_samples", "seed", "max_period"}
    thresholds = Thresholds(**{k: require_int(f"--set {k}", v, 0) if k in integers else v
                               for k, v in overrides.items()})
    read_sweep(args.path)                            # StoreError before anything is written
    busy = holder(args.path)
    fractions = analyze(args.path, thresholds, write=busy is None)
    if busy is None:
        report(args, f"{args.path}: analysis written")
    else:
        report(args, f"{busy.describe(args.path)}: its finished points are classified below, nothing is written; "
                     "run `meanfield analyze` again when it has finished to store the analysis")
    for name, value in fractions.items():
        if value == value and value > 0:
            report(args, f"  {name:15s} {value:6.1%}")
