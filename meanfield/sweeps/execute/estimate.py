"""What a sweep will cost before it runs (``meanfield sweep --dry-run``): its points, the size of its file, and
a time measured on this machine.

The time comes from running the sweep's own task (:func:`meanfield.sweeps.execute.tasks.compute_chunk`: simulation,
reductions, evidence) on a few points with the run's settings but at most ``max_steps`` iterations, on one
thread, after a warm-up call that compiles the kernels; it is scaled linearly to the run's length and divided
over the workers. Worker start-up and the one-time compilation are not included.
"""
from __future__ import annotations

import time

import numpy as np

from ..spec.runfile import RunSpec
from .tasks import compute_chunk


def calibration_run(run: RunSpec, max_steps: int) -> tuple:
    """(shorter run, factor): ``run`` cut to at most ``max_steps`` iterations with the transient and the tail
    in proportion, and run.steps / its steps."""
    if run.steps <= max_steps:
        return run, 1.0
    steps = max_steps
    # in proportion, but never below what fills the window before exponents start (docs/model.md §4.2)
    transient = min(steps - 1, max(round(run.transient * steps / run.steps), min(run.transient, run.model.context)))
    rows = (steps - transient + run.record.every - 1) // run.record.every
    short = run.replace(steps=steps, transient=transient, **{"record.tail": min(run.record.tail, rows)})
    return short, run.steps / steps


def seconds_per_point(run: RunSpec, points: int = 3, max_steps: int = 2000) -> float:
    """Single-thread seconds per grid point of ``run`` on this machine (see the module docstring), measured on
    ``points`` points spread inside the grid (its ends are often the cheapest or dearest)."""
    import numba
    short, factor = calibration_run(run, max_steps)
    inside = np.linspace(0, run.n_points - 1, points + 2)[1:-1] if run.n_points > points else np.arange(run.n_points)
    indices = np.unique(inside.round().astype(np.int64))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        compute_chunk(short, indices[:1], np.full(1, -1))             # compiles (or loads the kernel cache)
        start = time.perf_counter()
        compute_chunk(short, indices, np.full(len(indices), -1))
        elapsed = time.perf_counter() - start
    finally:
        numba.set_num_threads(threads)
    return elapsed / len(indices) * factor


def duration(seconds: float) -> str:
    """``"≈ 42 s"``, ``"≈ 7.5 min"``, ``"≈ 3.2 h"``."""
    if seconds < 90:
        return f"≈ {seconds:.0f} s"
    if seconds < 5400:
        return f"≈ {seconds / 60:.1f} min"
    return f"≈ {seconds / 3600:.1f} h"


def size(n_bytes: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n_bytes < 1000 or unit == "GB":
            return f"{n_bytes:.0f} {unit}" if unit == "B" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1000


__all__ = ["seconds_per_point", "calibration_run", "duration", "size"]
