"""``meanfield runs``: the run files and study files shipped with the package, each by name with its first
comment line; any of them runs by name (``meanfield sweep paper_fig3_quick``, ``meanfield onset
onset_scaling_quick``, :mod:`meanfield.sweeps.config.shipped`)."""
from __future__ import annotations


def register(sub, parents):
    p = sub.add_parser("runs", parents=parents, help="list the run files shipped with meanfield",
                       description="List the run files shipped with the package (the repository's runs/), then "
                                   "its study files (runs/studies/), each with its first comment line. "
                                   "`meanfield sweep NAME` runs a run file by name, `meanfield onset NAME` and "
                                   "`meanfield curves NAME` a study file; a path to a file of your own works too.")
    p.set_defaults(run=run)


def run(args):
    from ..sweeps.config.shipped import STUDIES, shipped_runs
    runs, studies = shipped_runs(), shipped_runs(STUDIES)
    width = max(map(len, [*runs, *studies]), default=0)
    for name, line in runs.items():
        print(f"{name:{width}s}  {line}")
    print("\nstudy files (meanfield onset NAME, meanfield curves NAME):")
    for name, line in studies.items():
        print(f"{name:{width}s}  {line}")
