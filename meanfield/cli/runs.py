"""``meanfield runs``: the run files shipped with the package, each by name with its first comment line; any
of them runs by name (``meanfield sweep paper_fig3_quick``, :mod:`meanfield.sweeps.config.shipped`)."""
from __future__ import annotations


def register(sub, parents):
    p = sub.add_parser("runs", parents=parents, help="list the run files shipped with meanfield",
                       description="List the run files shipped with the package (the repository's runs/), each "
                                   "with its first comment line. `meanfield sweep NAME` runs one by name; a path "
                                   "to a run file of your own works too.")
    p.set_defaults(run=run)


def run(args):
    from ..sweeps.config.shipped import shipped_runs
    names = shipped_runs()
    width = max(map(len, names), default=0)
    for name, line in names.items():
        print(f"{name:{width}s}  {line}")
