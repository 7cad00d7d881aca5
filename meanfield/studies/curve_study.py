"""Curve studies (docs/bifurcations.md §12): the two-parameter bifurcation curves and Arnold tongues of one model,
computed from a study file in one process, stored in an HDF5 file that xarray reads, resumed after an
interruption. A sweep's run file computes the same curves on its cluster from a ``[curves]`` table
(:mod:`meanfield.sweeps.execute.curves`).

A study file (TOML, ``runs/studies/``) holds a ``name``, the ``[model]`` table of a run file, and the curves' keys
and tables (:mod:`meanfield.sweeps.config.curves`)::

    name = "onset_curves"
    parameters = ["beta_o", "beta_att"]
    interval = [0.5, 7.0]

    [model]
    preset = "paper"

    [[curve]]
    name = "rest_ns"
    locate = [1.24, 1.245]
    kind = "neimark_sacker"

Every finished curve is appended to a journal beside the output (``OUT.partial.jsonl``, a line per curve, exact
floats), so an interrupted study resumes with the curves still to do; at the end the Dataset
(:func:`~meanfield.sweeps.store.curves.curves_dataset`) is written and the journal removed.
"""
from __future__ import annotations

import json
import os
import sys
import time

from ..sweeps.config.curves import CURVES_KEYS, CurveStudy, parse_curves
from ..sweeps.execute.curves import compute_curve
from ..sweeps.store.curves import curves_dataset
from .study_file import finish, journal_path, journal_rows, read_study

#: The keys of a study file and their defaults (None: required): a name, the model, the curves' keys.
KEYS = {"name": None, "model": {}, **CURVES_KEYS}


def load_curve_study(path) -> CurveStudy:
    """Read and check a study file: a ConfigError of one line naming the key, the value and what is allowed,
    before anything is computed (the model is built, so its preset and overrides are checked too)."""
    from ..sweeps.config.run_checks import parse_model_table
    values = read_study(path, KEYS, "a curve study")
    return parse_curves(values, parse_model_table(values["model"]), values["name"])


def run_curve_study(study: CurveStudy, output: str, progress: bool = True):
    """Compute every task whose curves are not yet in the journal, then write ``output`` and remove the journal;
    returns the Dataset (:func:`curves_dataset`)."""
    journal = journal_path(output)
    done = journal_rows(journal, lambda row: row["name"])
    start = time.monotonic()
    with open(journal, "a", encoding="utf-8") as handle:
        for index, task in enumerate(study.tasks):
            names = task.curves
            if all(n in done for n in names):
                continue
            for row in compute_curve(study, task):
                handle.write(json.dumps(row) + "\n")
                done[row["name"]] = row
            handle.flush()
            os.fsync(handle.fileno())
            if progress:
                print(f"curves: {index + 1}/{len(study.tasks)}  {task.what} {task.name}: "
                      f"{sum(len(done[n]['values']) for n in names)} points  [{time.monotonic() - start:.0f} s]",
                      file=sys.stderr, flush=True)
    return finish(curves_dataset(study, done), output, "curves")


__all__ = ["load_curve_study", "run_curve_study"]
