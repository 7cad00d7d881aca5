"""``meanfield analyze RUN.h5``: classify every point of a sweep and write its ``analysis`` group
(docs/storage.md §4); with ``--refine RES``, first bisect every transition of a 1-D sweep down to RES
(docs/classification.md §9) and print the located transitions."""
from __future__ import annotations


def register(sub, parents):
    p = sub.add_parser("analyze", parents=parents, help="classify the attractor of every point of a sweep file",
                       description="Decide the attractor class of every computed point from the evidence the "
                                   "sweep stored (period, Birkhoff drift, torus frequencies, 0-1 test, exponents, "
                                   "...) and write the 'analysis' group. Thresholds can be changed without "
                                   "re-running the sweep (docs/classification.md).")
    p.add_argument("path", help="sweep file written by `meanfield sweep`")
    p.add_argument("--set", dest="overrides", action="append", metavar="KEY=VALUE",
                   help="threshold of meanfield.analysis.Thresholds (e.g. z=4, k_chaotic=0.9, min_repeats=20)")
    p.add_argument("--refine", type=float, metavar="RES",
                   help="bisect between neighbouring points of a 1-D sweep whose classes differ until every "
                        "transition is bracketed to RES (axis units); the new points are stored in the same "
                        "file (group 'refine', resumable) and the located transitions are printed")
    p.add_argument("--bifurcations", action="store_true",
                   help="continue the orbit of every fixed-point or periodic side of a transition of a 1-D sweep "
                        "from its stored final state and replace label brackets by located fold, period-doubling "
                        "and Neimark-Sacker points where the multipliers allow (docs/bifurcations.md)")
    p.add_argument("--max-rounds", type=int, default=40, metavar="N", help="most bisection rounds (default 40)")
    p.set_defaults(run=run)


def _thresholds(overrides):
    import dataclasses

    from ..analysis import Thresholds
    from ..errors import ConfigError
    fields = {f.name: f for f in dataclasses.fields(Thresholds)}
    unknown = sorted(set(overrides) - set(fields))
    if unknown:
        raise ConfigError(f"--set {unknown[0]} is not allowed: thresholds are {sorted(fields)}")
    values = {}
    for key, value in overrides.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"--set {key} = {value!r} is not allowed: must be a number")
        if "int" in str(fields[key].type):
            if value != int(value):
                raise ConfigError(f"--set {key} = {value!r} is not allowed: must be an integer")
            value = int(value)
        values[key] = value
    return Thresholds(**values)


def run(args):
    from ..errors import ConfigError, StoreError
    from ..sweeps.results.basins import basin_report
    from ..sweeps.results.labels import analyze
    from ..sweeps.results.refine import classified_points, refine, transition_table, transitions
    from ..sweeps.results.transitions import confirmed_table, located_table, require_continuable, sweep_bifurcations
    from ..sweeps.store import read_sweep
    from ..sweeps.store.census import census_events
    from ..sweeps.store.lock import holder
    from . import parse_overrides, progress_enabled, report
    thresholds = _thresholds(parse_overrides(args.overrides))
    read_sweep(args.path)                            # StoreError (one line) unless it is a readable sweep file
    if args.refine is not None and args.max_rounds < 1:
        raise ConfigError(f"--max-rounds = {args.max_rounds} is not allowed: must be at least 1")
    if args.bifurcations:
        require_continuable(read_sweep(args.path))
    busy = holder(args.path)
    if args.refine is not None and busy is not None:
        raise StoreError(f"{busy.describe(args.path)}: refine it when it has finished")
    found = None
    if args.refine is not None:
        found = refine(args.path, args.refine, thresholds, args.max_rounds, progress=progress_enabled(args))
    else:
        try:
            found = transitions(*classified_points(args.path, thresholds)[1:])
        except ConfigError:                          # a 2-D sweep: no transitions along one axis
            found = None
    fractions = analyze(args.path, thresholds, write=busy is None, transitions=found)
    if busy is None:
        report(args, f"{args.path}: analysis written")
    else:
        report(args, f"{busy.describe(args.path)}: its finished points are classified below, nothing is written; "
                     "run `meanfield analyze` again when it has finished to store the analysis")
    for name, value in fractions.items():
        if value == value and value > 0:
            report(args, f"  {name:15s} {value:6.1%}")
    if found is not None:
        axis, values, names = classified_points(args.path, thresholds)
        if args.bifurcations:
            located, confirmed = sweep_bifurcations(args.path, values, names, progress_enabled(args))
            report(args, confirmed_table(axis, confirmed))
            report(args, located_table(axis, located))
        else:
            report(args, transition_table(axis, found, args.refine))
    for line in census_events(args.path):
        report(args, line)
    for line in basin_report(args.path):
        report(args, line)
