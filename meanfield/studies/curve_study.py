"""Curve studies (docs/bifurcations.md §12): the two-parameter bifurcation curves and Arnold tongues of one model,
computed from a study file, stored in an HDF5 file that xarray reads, resumed after an interruption.

A study file (TOML, ``runs/studies/``)::

    name = "onset_curves"
    parameters = ["beta_o", "beta_att"]   # located along the first, continued in the second
    interval = [0.5, 7.0]                 # the second's range

    [model]                               # as in a run file: a preset and its overrides
    preset = "paper"

    [[curve]]                             # a point of mf.bifurcations continued by mf.bifurcation_curve
    name = "rest_ns"
    locate = [1.24, 1.245]                # the first parameter's interval the point is located in
    kind = "neimark_sacker"               # the first located point of this kind (default: the first point)
    settle = [1.27, 100000]               # the state: a run of 100 000 steps at first = 1.27 from the model's
                                          # checkpoint (default: the checkpoint itself)
    period = 28                           # the cycle's period in steps (default: detected)
    interval = [1.9, 2.5]                 # this curve's range of the second parameter (default: the study's)

    [[tongue]]                            # mf.arnold_tongue from the end of a run that is locked on a torus
    name = "tongue_1_4"
    settle = [1.2502562, 200000]

A tongue gives two curves, ``NAME.lower`` and ``NAME.upper`` (its sides through the folds below and above the
settling value), and its tip as a codim-2 point of kind ``tip`` on the first. Every finished curve is appended
to a journal beside the output (``OUT.partial.jsonl``, a line per curve, exact floats), so an interrupted study
resumes with the curves still to do; at the end the Dataset (:func:`curves_dataset`) is written and the journal
removed.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from .study_file import finish, journal_path, journal_rows, read_study

#: The keys of a study file and their defaults (None: required); the keys of a [[curve]] and of a [[tongue]]
#: table, and the ones each needs.
KEYS = {"name": None, "parameters": None, "interval": None, "model": {}, "curve": [], "tongue": []}
CURVE_KEYS, CURVE_NEEDS = ("name", "locate", "kind", "settle", "period", "interval"), ("name", "locate")
TONGUE_KEYS, TONGUE_NEEDS = ("name", "settle"), ("name", "settle")
KINDS = ("fold", "period_doubling", "neimark_sacker")


@dataclass(frozen=True)
class CurveTask:
    """One [[curve]] or [[tongue]] table, checked: ``what`` "curve" or "tongue"; ``locate`` (a curve's interval of
    the first parameter), ``kind`` (or None), ``settle`` (value of the first parameter, steps) or None,
    ``period`` or None, ``interval`` (a curve's own range of the second parameter) or None."""

    what: str
    name: str
    locate: tuple | None = None
    kind: str | None = None
    settle: tuple | None = None
    period: int | None = None
    interval: tuple | None = None


@dataclass(frozen=True)
class CurveStudy:
    """A checked study file (module docstring)."""

    name: str
    parameters: tuple[str, str]
    interval: tuple[float, float]
    model_table: dict
    tasks: tuple[CurveTask, ...]

    @property
    def model(self):
        from ..sweeps.config.run_checks import build_model
        return build_model(self.model_table)

    def curve_names(self) -> list:
        """The stored curves' names, in order (a tongue's two sides)."""
        return [n for t in self.tasks for n in ((t.name,) if t.what == "curve" else
                                                (f"{t.name}.lower", f"{t.name}.upper"))]


def _keys(table, keys: dict, required: tuple, where: str) -> dict:
    if not isinstance(table, dict):
        raise ConfigError(f"{where} = {table!r} is not allowed: must be a table")
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise ConfigError(f"{where}.{unknown[0]} is not allowed: {where} has the keys {sorted(keys)}")
    missing = [key for key in required if key not in table]
    if missing:
        raise ConfigError(f"{where}.{missing[0]} is missing: {where} needs {list(required)}")
    return {key: table.get(key) for key in keys}


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _pair(where: str, value, increasing: bool = True) -> tuple[float, float]:
    if (not isinstance(value, list) or len(value) != 2 or not all(_number(v) for v in value)
            or (increasing and not value[0] < value[1])):
        raise ConfigError(f"{where} = {value!r} is not allowed: must be [start, stop], two finite numbers"
                          + (" with start < stop" if increasing else ""))
    return float(value[0]), float(value[1])


def _settle(where: str, value) -> tuple | None:
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != 2 or not _number(value[0]) or not isinstance(value[1], int)
            or isinstance(value[1], bool) or not 1 <= value[1] <= 10**8):
        raise ConfigError(f"{where}.settle = {value!r} is not allowed: must be [value of the first parameter, "
                          "steps], steps an integer in [1, 1e8]")
    return float(value[0]), int(value[1])


def _task(what: str, table, index: int) -> CurveTask:
    where = f"{what}[{index}]"
    values = _keys(table, *((CURVE_KEYS, CURVE_NEEDS) if what == "curve" else (TONGUE_KEYS, TONGUE_NEEDS)), where)
    name = values["name"]
    if not isinstance(name, str) or not name or not name.replace("_", "").isalnum():
        raise ConfigError(f"{where}.name = {name!r} is not allowed: must be a non-empty name of letters, digits "
                          "and _")
    if what == "tongue":
        return CurveTask("tongue", name, settle=_settle(where, values["settle"]))
    kind, period = values["kind"], values["period"]
    if kind is not None and kind not in KINDS:
        raise ConfigError(f"{where}.kind = {kind!r} is not allowed: must be one of {', '.join(KINDS)}")
    if period is not None and (not isinstance(period, int) or isinstance(period, bool) or not 1 <= period <= 4096):
        raise ConfigError(f"{where}.period = {period!r} is not allowed: must be an integer in [1, 4096]")
    interval = None if values["interval"] is None else _pair(f"{where}.interval", values["interval"])
    return CurveTask("curve", name, _pair(f"{where}.locate", values["locate"], increasing=False), kind,
                     _settle(where, values["settle"]), period, interval)


def load_curve_study(path) -> CurveStudy:
    """Read and check a study file: a ConfigError of one line naming the key, the value and what is allowed,
    before anything is computed (the model is built, so its preset and overrides are checked too)."""
    from ..model.spec import SCALAR_PARAMETERS
    from ..sweeps.config.run_checks import build_model, parse_model_table
    values = read_study(path, KEYS, "a curve study")
    parameters = values["parameters"]
    if (not isinstance(parameters, list) or len(parameters) != 2 or len(set(parameters)) != 2
            or not all(p in SCALAR_PARAMETERS for p in parameters)):
        raise ConfigError(f"parameters = {parameters!r} is not allowed: must be two different names of "
                          f"{', '.join(SCALAR_PARAMETERS)}")
    interval = _pair("interval", values["interval"])
    model_table = parse_model_table(values["model"])
    current = getattr(build_model(model_table), parameters[1])
    tasks = []
    for what in ("curve", "tongue"):
        if not isinstance(values[what], list):
            raise ConfigError(f"{what} = {values[what]!r} is not allowed: must be an array of tables [[{what}]]")
        tasks += [_task(what, table, i) for i, table in enumerate(values[what])]
    for where, span in [("interval", interval)] + [(f"curve {t.name!r}: interval", t.interval) for t in tasks
                                                    if t.interval is not None]:
        if not span[0] <= current <= span[1]:
            raise ConfigError(f"{where} = {list(span)!r} is not allowed: must contain the model's "
                              f"{parameters[1]} = {current!r}")
    if not tasks:
        raise ConfigError("curve is missing: a curve study needs at least one [[curve]] or [[tongue]] table")
    study = CurveStudy(values["name"], tuple(parameters), interval, model_table, tuple(tasks))
    names = study.curve_names()
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"name = {repeated[0]!r} is not allowed: two curves of the study have it")
    return study


def _row(name: str, curve, source: str, extra_special=()) -> dict:
    """One journal line: what the Dataset keeps of a :class:`~meanfield.analysis.Curve`."""
    special = [{"kind": p.kind, "values": [float(v) for v in p.values]} for p in curve.special]
    return {"name": name, "source": source, "kind": curve.kind, "period": int(curve.period),
            "values": curve.values.tolist(), "coefficient": [float(c) for c in curve.coefficients],
            "criticality": [c or "" for c in curve.criticality], "special": special + list(extra_special)}


def _state(study: CurveStudy, task: CurveTask):
    """The state a task starts from: the end of its settling run, or the model's checkpoint."""
    from ..simulation import simulate
    model = study.model
    if task.settle is None:
        return model, model.checkpoint
    value, steps = task.settle
    at = model.replace(**{study.parameters[0]: value})
    return at, simulate(at, steps, record="att", progress=False).final_state


def compute(study: CurveStudy, task: CurveTask) -> list:
    """The journal rows of one task (one curve, or a tongue's two sides)."""
    from ..bifurcation_curves import bifurcation_curve
    from ..errors import AnalysisError
    from ..periodic_orbits import bifurcations
    from ..tongues import arnold_tongue
    first, second = study.parameters
    model, state = _state(study, task)
    if task.what == "tongue":
        tongue = arnold_tongue(model, state, study.parameters, study.interval)
        tip = [] if tongue.tip is None else [{"kind": "tip", "values": [float(v) for v in tongue.tip]}]
        return [_row(f"{task.name}.lower", tongue.sides[0], "tongue", tip),
                _row(f"{task.name}.upper", tongue.sides[1], "tongue")]
    located = bifurcations(model.replace(**{first: task.locate[0]}), first, task.locate, state=state,
                           period=task.period, transient=0 if task.settle else 20_000)
    points = [p for p in located if task.kind is None or p.kind == task.kind]
    if not points:
        raise AnalysisError(f"curve {task.name!r}: no {task.kind or 'bifurcation'} point along {first} in "
                            f"{list(task.locate)}")
    point = points[0]
    curve = bifurcation_curve(model.replace(**{first: point.value}), point, second, task.interval or study.interval,
                              state=state)
    return [_row(task.name, curve, "curve")]


def run_curve_study(study: CurveStudy, output: str, progress: bool = True):
    """Compute every task whose curves are not yet in the journal, then write ``output`` and remove the journal;
    returns the Dataset (:func:`curves_dataset`)."""
    journal = journal_path(output)
    done = journal_rows(journal, lambda row: row["name"])
    start = time.monotonic()
    with open(journal, "a", encoding="utf-8") as handle:
        for index, task in enumerate(study.tasks):
            names = [task.name] if task.what == "curve" else [f"{task.name}.lower", f"{task.name}.upper"]
            if all(n in done for n in names):
                continue
            for row in compute(study, task):
                handle.write(json.dumps(row) + "\n")
                done[row["name"]] = row
            handle.flush()
            os.fsync(handle.fileno())
            if progress:
                print(f"curves: {index + 1}/{len(study.tasks)}  {task.what} {task.name}: "
                      f"{sum(len(done[n]['values']) for n in names)} points  [{time.monotonic() - start:.0f} s]",
                      file=sys.stderr, flush=True)
    return finish(curves_dataset(study, done), output)


def curves_dataset(study: CurveStudy, rows: dict):
    """The curves as one xarray Dataset: dims ``curve`` (names), ``point`` (padded with NaN to the longest
    curve), ``parameter`` (the two names) and ``special``; variables ``values`` (curve, point, parameter),
    ``length``, ``kind``, ``period``, ``source`` ("curve" or "tongue"), ``coefficient`` (c or l₁ per point,
    docs/bifurcations.md §9), ``criticality`` ("supercritical", "subcritical" or ""), and the codim-2 points
    ``special_curve``, ``special_kind``, ``special_values`` (special, parameter); the study's settings in the
    attributes."""
    import xarray

    names = study.curve_names()
    longest = max(len(rows[n]["values"]) for n in names)
    values = np.full((len(names), longest, 2), np.nan)
    coefficient = np.full((len(names), longest), np.nan)
    criticality = np.full((len(names), longest), "", dtype=object)
    for i, name in enumerate(names):
        k = len(rows[name]["values"])
        values[i, :k] = rows[name]["values"]
        coefficient[i, :k] = rows[name]["coefficient"]
        criticality[i, :k] = rows[name]["criticality"]
    special = [(name, p) for name in names for p in rows[name]["special"]]
    data = {
        "values": (("curve", "point", "parameter"), values),
        "length": (("curve",), np.array([len(rows[n]["values"]) for n in names], dtype=np.int64)),
        "kind": (("curve",), np.array([rows[n]["kind"] for n in names], dtype=str)),
        "period": (("curve",), np.array([rows[n]["period"] for n in names], dtype=np.int64)),
        "source": (("curve",), np.array([rows[n]["source"] for n in names], dtype=str)),
        "coefficient": (("curve", "point"), coefficient),
        "criticality": (("curve", "point"), criticality.astype(str)),
        "special_curve": (("special",), np.array([n for n, _ in special], dtype=str)),
        "special_kind": (("special",), np.array([p["kind"] for _, p in special], dtype=str)),
        "special_values": (("special", "parameter"), np.array([p["values"] for _, p in special],
                                                               dtype=np.float64).reshape(len(special), 2)),
    }
    attrs = {"name": study.name, "interval": list(study.interval), "model": json.dumps(study.model_table),
             "kind": "curves"}
    return xarray.Dataset(data, coords={"curve": names, "parameter": list(study.parameters)}, attrs=attrs)


__all__ = ["CurveStudy", "CurveTask", "compute", "curves_dataset", "load_curve_study", "run_curve_study"]
