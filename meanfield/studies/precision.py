"""What float32 costs: a check of a float32 GPU run against float64 on a sample of points (float64 is the
default; float32 runs only where asked, and this says what it costs in accuracy).

:func:`precision_check` runs the sampled points twice on the CUDA backend (``"cuda"`` and
``"cuda:float32"``) and reports, as a flat dict of scalars a sweep can store in the run's attributes:

* the divergence time of the trajectories — the first iteration at which max |A64 - A32| over the window
  row exceeds ``tolerance`` (a chaotic orbit separates after ~ ln(tol/2^-24)/λ1 steps; a periodic one never);
* the agreement of λ1 (docs/model.md §4) when exponents are computed;
* the agreement of the attractor classes of :func:`meanfield.analysis.classify` (when it can classify).
"""
from __future__ import annotations

import numpy as np

from ..analysis import classify
from ..errors import MeanfieldError
from ..options import Compute
from ..simulation import simulate_batch

#: Observable compared for the divergence time (the attention output, docs/model.md §3 step 5).
DIVERGENCE_OBSERVABLE = "att"


def sample_points(n_points: int, sample: int) -> np.ndarray:
    """``sample`` indices spread evenly over 0..n_points-1 (all of them when there are fewer)."""
    if n_points <= sample:
        return np.arange(n_points)
    return np.unique(np.linspace(0, n_points - 1, sample).round().astype(np.int64))


def divergence_steps(x64: np.ndarray, x32: np.ndarray, tolerance: float) -> np.ndarray:
    """Per point (axis 0): first row (axis 1) where max |x64 - x32| over the rest exceeds ``tolerance``
    (NaN in either counts as diverged); -1 where they never separate."""
    gap = np.abs(x64 - x32).reshape(x64.shape[0], x64.shape[1], -1)
    apart = ~(np.max(gap, axis=2) <= tolerance)
    first = np.argmax(apart, axis=1)
    return np.where(apart.any(axis=1), first, -1)


def precision_check(model, steps: int, transient: int = 0, *, parameters: dict | None = None, start=None,
                    lyapunov=False, sample: int = 16, tolerance: float = 1e-3, divergence_steps_max: int = 20_000,
                    classify: bool = True) -> dict:
    """Compare float32 with float64 on ``sample`` evenly spread points of a batch (arguments as
    :func:`meanfield.simulation.simulate_batch`; ``start`` may be one State or one per point).

    Returns a dict of scalars (prefix ``float32_``): points checked, the divergence times of the trajectories
    from t = 0 over at most ``divergence_steps_max`` iterations (min / median, and how many points never
    separated), the largest and median |Δλ1| (with exponents), and the fraction of points whose class agrees
    (with ``classify`` and when classification succeeds).
    """
    n_points = _n_points(parameters)
    idx = sample_points(n_points, int(sample))
    params = None if parameters is None else {k: np.asarray(v).reshape(-1)[idx] for k, v in parameters.items()}
    starts = start if start is None or not isinstance(start, (list, tuple)) else [start[i] for i in idx]
    short = min(int(steps), int(divergence_steps_max))
    kw = dict(parameters=params, start=starts)
    a64 = simulate_batch(model, short, 0, record=(DIVERGENCE_OBSERVABLE,), compute=Compute(backend="cuda"), **kw)
    a32 = simulate_batch(model, short, 0, record=(DIVERGENCE_OBSERVABLE,), compute=Compute(backend="cuda:float32"),
                         **kw)
    div = divergence_steps(a64.records[DIVERGENCE_OBSERVABLE], a32.records[DIVERGENCE_OBSERVABLE], tolerance)
    apart = div[div >= 0]
    report = {"float32_check_points": int(idx.size), "float32_check_tolerance": float(tolerance),
              "float32_check_steps": short,
              "float32_divergence_step_min": int(apart.min()) if apart.size else -1,
              "float32_divergence_step_median": float(np.median(apart)) if apart.size else -1.0,
              "float32_never_diverged": int(np.sum(div < 0))}
    if not lyapunov and not classify:
        return report
    full = dict(kw, lyapunov=lyapunov, record=("mo_se",))
    r64 = simulate_batch(model, steps, transient, compute=Compute(backend="cuda"), **full)
    r32 = simulate_batch(model, steps, transient, compute=Compute(backend="cuda:float32"), **full)
    if r64.lyapunov is not None:
        with np.errstate(invalid="ignore"):
            gap = np.abs(r64.lyapunov[:, 0] - r32.lyapunov[:, 0])
        any_finite = np.any(np.isfinite(gap))
        report["float32_lambda1_absdiff_max"] = float(np.nanmax(gap)) if any_finite else float("nan")
        report["float32_lambda1_absdiff_median"] = float(np.nanmedian(gap)) if any_finite else float("nan")
    if classify:
        agree = _class_agreement(r64, r32)
        if agree is not None:
            report["float32_class_agreement"] = agree
    return report


def _n_points(parameters) -> int:
    if not parameters:
        return 1
    return int(np.asarray(next(iter(parameters.values()))).reshape(-1).size)


def _class_agreement(r64, r32):
    """Fraction of points with the same class label in both precisions (None if classification fails)."""
    try:
        same = []
        for i in range(r64.records["mo_se"].shape[0]):
            labels = []
            for res in (r64, r32):
                lam = None if res.lyapunov is None else res.lyapunov[i]
                se = None if res.lyapunov_stderr is None else res.lyapunov_stderr[i]
                labels.append(classify(res.records["mo_se"][i], lam, se).label)
            same.append(labels[0] == labels[1])
        return float(np.mean(same))
    except (MeanfieldError, ValueError):
        return None


__all__ = ["precision_check", "divergence_steps", "sample_points"]
