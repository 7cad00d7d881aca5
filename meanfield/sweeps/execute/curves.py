"""The curves of a run file's ``[curves]`` table (docs/bifurcations.md §12): once every point of the sweep is done, one
Dask task per [[curve]] or [[tongue]] whose curves the file does not hold yet, all submitted at once; each task's
rows go to the file as it arrives (:mod:`meanfield.sweeps.store.curves`), and the ``curves`` group is written when
all are there. A task is computed by :func:`compute_curve` wherever it runs, from the run file alone, so the
curves do not depend on the workers or on a stop and resume. A curve study (``meanfield curves``,
:mod:`meanfield.studies.curve_study`) computes the same tasks in one process.
"""
from __future__ import annotations

from ...options import Compute
from ..config.curves import CurveStudy, CurveTask
from ..store.curves import curves_done, stored_rows, write_curves, write_rows


def _row(name: str, curve, source: str, extra_special=()) -> dict:
    """One curve's row: what the Dataset keeps of a :class:`~meanfield.analysis.curves.Curve`."""
    special = [{"kind": p.kind, "values": [float(v) for v in p.values]} for p in curve.special]
    return {"name": name, "source": source, "kind": curve.kind, "period": int(curve.period),
            "values": curve.values.tolist(), "coefficient": [float(c) for c in curve.coefficients],
            "criticality": [c or "" for c in curve.criticality], "special": special + list(extra_special)}


def _state(study: CurveStudy, task: CurveTask):
    """The state a task starts from: the end of its settling run, or the model's checkpoint."""
    from ...simulation import simulate
    model = study.model
    if task.settle is None:
        return model, model.checkpoint
    value, steps = task.settle
    at = model.replace(**{study.parameters[0]: value})
    return at, simulate(at, steps, record="att", compute=Compute(progress=False)).final_state


def compute_curve(study: CurveStudy, task: CurveTask) -> list:
    """The rows of one task (one curve, or a tongue's two sides): what :func:`~meanfield.sweeps.store.curves.
    curves_dataset` keeps of each, exact floats (a study's journal line, a sweep's ``curve_rows`` attribute)."""
    from ...bifurcation_curves import bifurcation_curve
    from ...errors import AnalysisError
    from ...periodic_orbits import bifurcations
    from ...tongues import arnold_tongue
    first, second = study.parameters
    model, state = _state(study, task)
    if task.what == "tongue":
        tongue = arnold_tongue(model, state, study.parameters, study.interval)
        tip = [] if tongue.tip is None else [{"kind": "tip", "values": [float(v) for v in tongue.tip]}]
        lower, upper = task.curves
        return [_row(lower, tongue.sides[0], "tongue", tip), _row(upper, tongue.sides[1], "tongue")]
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


def curves_stage(study: CurveStudy, f, client, *, progress: bool, retries: int, arrived) -> None:
    """Compute the tasks of ``study`` whose curves ``f`` lacks on ``client`` (``retries`` each), writing each one's
    rows as it arrives — ``arrived(futures)`` yields the results (:func:`.cluster.arrivals`, which stops on
    Ctrl-C) — then the ``curves`` group; stopped, the tasks are cancelled."""
    from ...progress import progress_bar
    if curves_done(f):
        return
    held = stored_rows(f)
    todo = [t for t in study.tasks if not all(n in held for n in t.curves)]
    futures = [client.submit(compute_curve, study, task, retries=retries, pure=False) for task in todo]
    bar = progress_bar(len(futures), f"{study.name}: curves", enabled=progress, unit="task", waiting="computing")
    try:
        for rows in arrived(futures):
            write_rows(f, rows)
            bar.update(1)
        write_curves(f, study)
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        bar.close()


__all__ = ["compute_curve", "curves_stage"]
