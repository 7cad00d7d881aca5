"""The curves of a model to continue in two parameters (docs/bifurcations.md §12): a curve study's keys and a run
file's ``[curves]`` table, checked into a :class:`CurveStudy` before anything is computed::

    parameters = ["beta_o", "beta_att"]   # located along the first, continued in the second
    interval = [0.5, 7.0]                 # the second's range

    [[curve]]                             # a point of mf.bifurcations continued by mf.bifurcation_curve
    name = "rest_ns"
    locate = [1.24, 1.245]                # the first parameter's interval the point is located in
    kind = "neimark_sacker"               # the first located point of this kind (default: the first point)
    settle = [1.27, 100000]               # the state: a run of 100 000 steps at first = 1.27 from the model's
                                          # checkpoint (default: the checkpoint itself)
    period = 28                           # the cycle's period in steps (default: detected)
    interval = [1.9, 2.5]                 # this curve's range of the second parameter (default: the curves')

    [[tongue]]                            # mf.arnold_tongue from the end of a run that is locked on a torus
    name = "tongue_1_4"
    settle = [1.2502562, 200000]

In a run file the same keys sit in ``[curves]``, the tables as ``[[curves.curve]]`` and ``[[curves.tongue]]``. A
tongue gives two curves, ``NAME.lower`` and ``NAME.upper`` (its sides through the folds below and above the
settling value).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import ConfigError

#: The keys of the curves (a study file's or a run file's ``[curves]`` table) and their defaults (None: required);
#: the keys of a [[curve]] and of a [[tongue]] table, and the ones each needs.
CURVES_KEYS = {"parameters": None, "interval": None, "curve": [], "tongue": []}
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

    @property
    def curves(self) -> list:
        """The names of the curves the task gives (a tongue: its two sides)."""
        return [self.name] if self.what == "curve" else [f"{self.name}.lower", f"{self.name}.upper"]


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
        from .run_checks import build_model
        return build_model(self.model_table)

    def to_table(self) -> dict:
        """The checked keys as a run file's ``[curves]`` table writes them (the model aside)."""
        tables = {"curve": [], "tongue": []}
        for t in self.tasks:
            keys = CURVE_KEYS if t.what == "curve" else TONGUE_KEYS
            tables[t.what].append({k: list(v) if isinstance(v, tuple) else v for k in keys
                                   if (v := getattr(t, k)) is not None})
        return {"parameters": list(self.parameters), "interval": list(self.interval), **tables}

    def curve_names(self) -> list:
        """The stored curves' names, in order (a tongue's two sides)."""
        return [name for task in self.tasks for name in task.curves]


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


def _task(what: str, table, index: int, prefix: str = "") -> CurveTask:
    where = f"{prefix}{what}[{index}]"
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


def parse_curves(values: dict, model_table: dict, name: str, where: str = "") -> CurveStudy:
    """Check the curve keys of a study file, or of a run file's ``[curves]`` table (``where`` = "curves.", the
    prefix of its keys in the messages): ``parameters``, ``interval``, ``curve`` and ``tongue`` (the tables); the
    model is ``model_table``'s."""
    from ...model.spec import SCALAR_PARAMETERS
    from .run_checks import build_model
    parameters = values["parameters"]
    if (not isinstance(parameters, list) or len(parameters) != 2 or len(set(parameters)) != 2
            or not all(p in SCALAR_PARAMETERS for p in parameters)):
        raise ConfigError(f"{where}parameters = {parameters!r} is not allowed: must be two different names of "
                          f"{', '.join(SCALAR_PARAMETERS)}")
    interval = _pair(f"{where}interval", values["interval"])
    current = getattr(build_model(model_table), parameters[1])
    tasks = []
    for what in ("curve", "tongue"):
        if not isinstance(values[what], list):
            raise ConfigError(f"{where}{what} = {values[what]!r} is not allowed: must be an array of tables "
                              f"[[{where}{what}]]")
        tasks += [_task(what, table, i, where) for i, table in enumerate(values[what])]
    for span_name, span in [(f"{where}interval", interval)] + [(f"{where}curve {t.name!r}: interval", t.interval)
                                                                for t in tasks if t.interval is not None]:
        if not span[0] <= current <= span[1]:
            raise ConfigError(f"{span_name} = {list(span)!r} is not allowed: must contain the model's "
                              f"{parameters[1]} = {current!r}")
    if not tasks:
        raise ConfigError(f"{where}curve is missing: curves need at least one [[{where}curve]] or "
                          f"[[{where}tongue]] table")
    study = CurveStudy(name, tuple(parameters), interval, model_table, tuple(tasks))
    names = study.curve_names()
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"{where}name = {repeated[0]!r} is not allowed: two curves have it")
    return study



def parse_curves_table(table, model_table: dict, name: str) -> CurveStudy:
    """A run file's ``[curves]`` table (module docstring) of the run's model."""
    checked = _keys(table, CURVES_KEYS, ("parameters", "interval"), "curves")
    values = {key: CURVES_KEYS[key] if value is None else value for key, value in checked.items()}
    return parse_curves(values, model_table, name, where="curves.")


def check_curves_run(run) -> None:
    """ConfigError when a run's ``[curves]`` table cannot go with its other tables: the curves are of the mean-field
    map of one model, so not with ``[finite]`` nor a ``seed`` grid axis."""
    if run.curves is None:
        return
    if run.finite is not None:
        raise ConfigError("curves = [curves] is not allowed with [finite]: the curves are of the mean-field map")
    if any(a.name == "seed" for a in run.axes):
        raise ConfigError("curves = [curves] is not allowed with a seed grid axis: the curves are of one model")


__all__ = ["CurveStudy", "CurveTask", "check_curves_run", "parse_curves", "parse_curves_table"]
