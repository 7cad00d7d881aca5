"""Escape from a chaotic transient: the rate at which starts leave a non-attracting set (docs/attractors.md §7).

Starts that wander on a chaotic saddle before they settle leave it at random times T with, past a short
initial phase, a constant hazard: P(T > t) ∝ e^{−κ t}, κ the escape rate and 1/κ the mean lifetime (Kantz &
Grassberger, Physica D 17, 75 (1985); Lai & Tél, "Transient Chaos", Springer 2011, ch. 2). A finite run sees each
start's escape time only if it comes before the run's end (a right-censored sample). :func:`escape_rate` is the
maximum-likelihood estimate of a constant per-step hazard h from such a sample — escapes counted after
``after`` steps, over the steps each start spent at risk from then on —, κ = −ln(1 − h) per step, with the
standard error of the estimate (h's variance h²(1 − h)/d for d escapes, through the logarithm), and the
empirical survival curve for plots and checks.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from meanfield.errors import AnalysisError
from meanfield.short_repr import short_repr


@short_repr
@dataclass(frozen=True)
class EscapeRate:
    """What :func:`escape_rate` found: ``rate`` κ per step and its standard error ``stderr``; ``lifetime`` 1/κ
    (steps); ``escaped`` and ``at_risk`` the starts that escaped after ``after`` and those still inside then;
    ``survival`` (times, fraction still inside) at every observed escape time."""

    rate: float
    stderr: float
    lifetime: float
    escaped: int
    at_risk: int
    survival: tuple[np.ndarray, np.ndarray]


def escape_rate(times, horizon: float, *, after: float = 0.0) -> EscapeRate:
    """The escape rate of starts from a transient set (module docstring).

    Parameters
    ----------
    times : array_like, shape (starts,)
        Each start's escape time (steps; the first time it is seen outside the set), ``inf`` or NaN for a
        start still inside at ``horizon``.
    horizon : float
        The steps the starts were followed (every finite time must be ≤ it).
    after : float
        Escapes before this time are the initial phase and not counted; the starts still inside then are
        followed from it.

    Returns
    -------
    EscapeRate
    """
    t = np.asarray(times, dtype=np.float64).ravel()
    t = np.where(np.isnan(t), np.inf, t)
    if t.size == 0 or np.any(t < 0):
        raise AnalysisError("times: must be a non-empty array of escape times >= 0 (inf or NaN: not escaped)")
    if not (np.isfinite(horizon) and 0 <= after < horizon):
        raise AnalysisError(f"horizon = {horizon!r}, after = {after!r} are not allowed: need 0 <= after < horizon")
    if np.any(np.isfinite(t) & (t > horizon)):
        raise AnalysisError(f"times: an escape after the horizon {horizon!r}")
    risk = t[t > after]
    escaped = int(np.isfinite(risk).sum())
    if escaped == 0:
        raise AnalysisError(f"no start escaped between {after!r} and {horizon!r}: follow them longer")
    exposure = float(np.minimum(risk, horizon).sum() - after * risk.size)
    hazard = escaped / exposure
    rate = -np.log1p(-hazard) if hazard < 1 else np.inf
    stderr = hazard * np.sqrt((1 - hazard) / escaped) / (1 - hazard) if hazard < 1 else np.nan
    steps = np.unique(risk[np.isfinite(risk)])
    inside = np.array([(risk > s).sum() for s in steps]) / risk.size
    return EscapeRate(float(rate), float(stderr), float(1 / rate), escaped, int(risk.size), (steps, inside))
