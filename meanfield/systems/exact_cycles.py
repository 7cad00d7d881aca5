"""Runs that skip the steps of an exact cycle (docs/attractors.md §4), for the census's many starts.

A census run records only its last ``steps − transient`` rows. A start whose attention window at some step equals,
bit for bit, its window ``p`` steps earlier, ``p`` a multiple of the positional encoding's period, has entered an
exact cycle of the floating-point map: its state at ``t + k·p`` is its state at ``t`` for every k. Such a start
continues as if the largest ``k·p`` steps that the transient allows had run, so only its recorded rows and fewer
than ``p`` transient steps run again. The kernel's state is the window, the PE window and the controller's state,
so a run continued from its final state gives an uninterrupted run's rows bit for bit: the records and final
states are the plain run's, whatever is skipped. Windows are compared at :data:`CHECKS` steps; runs with
exponents (which add up along every step), under PID control or on a GPU run as they are.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..model import Control
from ..model.spec import SCALAR_PARAMETERS, ModelSpec
from ..model.state import StartWindows
from ..options import Compute
from ..simulation import simulate_batch

#: The steps at which the windows are compared (each needs the transient to reach past it).
CHECKS = (1024, 4096, 16384)
#: The longest exact cycle looked for, in steps (the census's default longest period).
LONGEST_CYCLE = 256


def skips_cycles(model: ModelSpec, starts: list, transient: int, values: Mapping, lyapunov, backend) -> bool:
    """Whether a run of these arguments may skip exact cycles (module docstring): without exponents, PID control
    or a GPU, a transient past the first check, and every start at the same PE phase (they run as full windows
    sharing one PE window)."""
    return (not lyapunov and backend == "cpu" and model.control == Control() and transient >= CHECKS[0]
            and all(name in SCALAR_PARAMETERS for name in values) and len(starts) > 0
            and all(np.array_equal(start.pe, starts[0].pe) for start in starts))


def run_skipping_cycles(model: ModelSpec, starts: list, steps: int, transient: int, values: Mapping,
                        record: tuple, progress) -> tuple:
    """``simulate_batch(model, steps, transient, parameters=values, start=starts, record=record)``'s records,
    final windows and final PE windows, the steps of exact cycles skipped (module docstring)."""
    n, history = len(starts), LONGEST_CYCLE + model.context
    period = model.forcing_period()
    clock = np.zeros(n, dtype=np.int64)                  # each start's (virtual) step
    att = np.zeros((n, model.context, model.n_features))
    pe = np.zeros((n, model.context, model.pe_bits))
    active, fresh = np.arange(n), np.ones(n, dtype=bool)   # fresh: still at its start (a State)
    now = 0
    for check in CHECKS:
        if check > transient or active.size == 0:
            break
        start = [starts[i] for i in active] if now == 0 else StartWindows(att[active], pe[active[0]])
        run = _run_lanes(model, active, values, start, check - now, check - now - history, ("att",), False)
        att[active], pe[active], clock[active], fresh[active] = run.final_att, run.final_pe, check, False
        now = check
        finite = np.isfinite(run.final_att).all(axis=(1, 2))
        fresh[active[~finite]], clock[active[~finite]] = True, 0       # non-finite: run again from the start
        cycle = _exact_periods(run.records["att"], model.context, period)
        jumped = finite & (cycle > 0)
        clock[active[jumped]] += (transient - check) // cycle[jumped] * cycle[jumped]
        active = active[finite & ~jumped]
    return _finish(model, starts, steps, transient, values, record, progress, clock, att, pe, fresh)


def _run_lanes(model, lanes, values, start, steps, transient, record, progress):
    """The kernel run of the starts ``lanes`` (from ``start``), each at its own parameter values."""
    return simulate_batch(model, steps, transient, start=start, record=record, compute=Compute(progress=progress),
                          parameters={k: np.asarray(v)[lanes] for k, v in values.items()})


def _exact_periods(rows: np.ndarray, context: int, period: int) -> np.ndarray:
    """Per start, the shortest multiple ``p`` of ``period`` for which the last ``context`` of ``rows``
    (n, history, M) equal, bit for bit, the ``context`` rows ``p`` before them; 0 where none does."""
    n, history = rows.shape[:2]
    found = np.zeros(n, dtype=np.int64)
    window = rows[:, history - context:]
    for p in range(period, history - context + 1, period):
        same = (found == 0) & (window == rows[:, history - context - p:history - p]).all(axis=(1, 2))
        found[same] = p
    return found


def _finish(model, starts, steps, transient, values, record, progress, clock, att, pe, fresh) -> tuple:
    """Every start run on from its clock to ``steps`` (fresh ones from their State), in groups sharing their
    clock and PE window; the results in the starts' order."""
    n, kept = len(starts), steps - transient
    records = {name: np.empty((n, kept, model.n_features)) for name in record}
    final_att, final_pe = np.empty_like(att), np.empty_like(pe)
    groups: dict = {}
    for i in range(n):
        groups.setdefault((bool(fresh[i]), int(clock[i]), pe[i].tobytes()), []).append(i)
    for (is_fresh, at, _), lanes in groups.items():
        start = [starts[i] for i in lanes] if is_fresh else StartWindows(att[lanes], pe[lanes[0]])
        run = _run_lanes(model, lanes, values, start, steps - at, transient - at, record, progress)
        for name in record:
            records[name][lanes] = run.records[name]
        final_att[lanes], final_pe[lanes] = run.final_att, run.final_pe
    return records, final_att, final_pe
