"""The onset of oscillation: the first bifurcation of the rest cycle along β_o, located from its multipliers
(docs/onset.md).

At small β_o every model settles on its rest cycle: the window repeats with the positional encoding's period L.
Its Floquet multipliers are the eigenvalues of the monodromy ∂Φ^L/∂A of the L-step map Φ^L on the L·M-dimensional
window (docs/model.md §4). The onset β_c is where the largest modulus reaches 1; the critical multiplier gives the
kind (docs/bifurcations.md §1: +1 fold, −1 period doubling, a complex pair Neimark–Sacker).

Everything here runs on the compiled kernel, batched: Φ^L of 2·L·M + 1 windows at once gives the image and the
monodromy by central differences (h = 1e-5: truncation ~h² and rounding ~1e-16/h, both ≲ 1e-10 relative), so a
Newton step of the cycle at M = 64, L = 32 (a 2 048-dimensional window) is one batch of 4 097 points of L steps.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..model.spec import ModelSpec
from ..model.state import StartWindows, State
from ..options import Compute
from ..simulation import simulate_batch

#: Central-difference step of the monodromy (module docstring).
DIFFERENCE_STEP = 1e-5
#: Newton's stop: the cycle's residual max|Φ^L(A) − A|.
CYCLE_TOLERANCE = 1e-11
#: Newton iterations before a cycle counts as lost.
NEWTON_ITERATIONS = 8
#: Above this window size the leading multipliers come from ARPACK instead of a dense eigensolver.
DENSE_EIGEN_LIMIT = 512
#: A critical multiplier with |Im μ| below this is real (fold or period doubling).
REAL_TOLERANCE = 1e-6


class UnstableStart(ConfigError):
    """The rest cycle is not stable (or not found) at the start of the searched interval."""


@dataclass(frozen=True)
class Onset:
    """The first bifurcation of the rest cycle: ``value`` of β_o (NaN where none below the interval's end),
    ``kind`` ("fold", "period_doubling", "neimark_sacker" or "none"), the ``critical`` multiplier there (the
    one with Im ≥ 0), ``rotation_number`` arg μ / 2π of a Neimark–Sacker pair (turns per L steps), and the
    ``evaluations`` of the cycle's multipliers it took."""

    value: float
    kind: str
    critical: complex
    rotation_number: float
    evaluations: int


def cycle_images(model: ModelSpec, beta: float, windows: np.ndarray, pe: np.ndarray) -> np.ndarray:
    """Φ^L of each window (n, L, M) at PE window ``pe`` and β_o = ``beta``, by the compiled kernel."""
    L = model.context
    run = simulate_batch(model, L, L - 1, parameters={"beta_o": np.full(len(windows), float(beta))},
                         start=StartWindows(att=windows, pe=pe), record=(), compute=Compute(progress=False))
    return np.asarray(run.final_att)


def monodromy(model: ModelSpec, beta: float, window: np.ndarray, pe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Φ^L(A), ∂Φ^L/∂A) at window A (L, M): the image and the L·M-square monodromy by central differences."""
    n = window.size
    shifts = DIFFERENCE_STEP * np.eye(n).reshape(n, *window.shape)
    batch = np.concatenate([window[None], window + shifts, window - shifts])
    images = cycle_images(model, beta, batch, pe).reshape(2 * n + 1, n)
    return images[0].reshape(window.shape), ((images[1:n + 1] - images[n + 1:]) / (2 * DIFFERENCE_STEP)).T


def rest_cycle(model: ModelSpec, beta: float, window: np.ndarray, pe: np.ndarray):
    """Newton on Φ^L(A) = A from ``window``: (A, monodromy there), or None when it does not converge."""
    for _ in range(NEWTON_ITERATIONS):
        image, jacobian = monodromy(model, beta, window, pe)
        residual = (image - window).ravel()
        if not np.all(np.isfinite(jacobian)):
            return None
        if np.max(np.abs(residual)) < CYCLE_TOLERANCE:
            return window, jacobian
        try:
            window = window - np.linalg.solve(jacobian - np.eye(residual.size), residual).reshape(window.shape)
        except np.linalg.LinAlgError:
            return None
    return None


def leading_multipliers(jacobian: np.ndarray, k: int = 6) -> np.ndarray:
    """The multipliers of largest modulus (all of them up to :data:`DENSE_EIGEN_LIMIT`), by decreasing modulus."""
    if jacobian.shape[0] <= DENSE_EIGEN_LIMIT:
        mu = np.linalg.eigvals(jacobian)
    else:
        from scipy.sparse.linalg import eigs
        mu = eigs(jacobian, k=k, which="LM", return_eigenvectors=False, tol=1e-12)
    return mu[np.argsort(-np.abs(mu))]


def settled_window(model: ModelSpec, beta: float, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The window and PE window after ``steps`` steps (a multiple of L) from the all-(+1) token at β_o = ``beta``."""
    start = State.from_token(model, np.ones(model.weights["v"].shape[1]))
    run = simulate_batch(model, steps, steps - 1, parameters={"beta_o": np.array([float(beta)])}, start=start,
                         record=(), compute=Compute(progress=False))
    return np.asarray(run.final_att[0]), np.asarray(run.final_pe[0])


def _excess(model, beta, window, pe):
    """max|μ| − 1 at β_o = ``beta`` and the cycle's (window, multipliers); None where Newton loses the cycle."""
    found = rest_cycle(model, beta, window, pe)
    if found is None:
        return None
    mu = leading_multipliers(found[1])
    return abs(mu[0]) - 1.0, found[0], mu


def rest_onset(model: ModelSpec, interval=(0.25, 6.0), *, resolution: float = 1e-6, settle: int | None = None,
               max_step: float = 0.5) -> Onset:
    """Locate the first bifurcation of the rest cycle of ``model`` along β_o on ``interval`` (module docstring).

    The cycle is settled from the all-(+1) token at ``interval[0]`` (``settle`` steps, default 400·L), then
    continued: the next β_o extrapolates max|μ| − 1 linearly to zero (at most ``max_step`` ahead), the cycle is
    refound by Newton from the last one; a sign change (or a lost cycle) brackets the onset, which the Illinois
    rule narrows to ``resolution``."""
    lo, hi = (float(v) for v in interval)
    if not 0 < lo < hi:
        raise ConfigError(f"interval = {interval!r} is not allowed: need 0 < start < stop")
    if model.weights is None:
        raise ConfigError("rest_onset: the model needs weight matrices (the token start); build it from weights")
    L = model.context
    window, pe = settled_window(model, lo, settle or 400 * L)
    first = _excess(model, lo, window, pe)
    evaluations = 1
    if first is None or first[0] >= 0:
        raise UnstableStart(f"interval = {interval!r} is not allowed: the rest cycle is not stable at β_o = {lo}")
    (g_lo, window, mu_lo), previous = first, None
    beta = lo
    while True:
        step = max_step if previous is None else min(max_step, max(1e-3, 1.5 * abs(g_lo) * (beta - previous[0])
                                                                      / max(g_lo - previous[1], 1e-12)))
        trial = min(beta + step, hi)
        found = _excess(model, trial, window, pe)
        evaluations += 1
        if found is None or found[0] >= 0:
            break
        previous, beta, (g_lo, window, mu_lo) = (beta, g_lo), trial, found
        if trial >= hi:
            return Onset(float("nan"), "none", complex(mu_lo[0]), float("nan"), evaluations)
    g_hi, beta_hi = (None if found is None else found[0]), trial
    side = 0
    while beta_hi - beta > resolution:
        if g_hi is None:                                   # the cycle was lost: bisect
            middle = 0.5 * (beta + beta_hi)
        else:
            middle = beta + (beta_hi - beta) * g_lo / (g_lo - g_hi)
            middle = min(max(middle, beta + 0.01 * (beta_hi - beta)), beta_hi - 0.01 * (beta_hi - beta))
        found = _excess(model, middle, window, pe)
        evaluations += 1
        if found is not None and found[0] < 0:
            beta, (g_lo, window, mu_lo) = middle, found
            if side == -1 and g_hi is not None:
                g_hi *= 0.5                                # Illinois: the stale end counts half
            side = -1
        else:
            beta_hi, g_hi = middle, (None if found is None else found[0])
            if side == 1:
                g_lo *= 0.5
            side = 1
    return _classified(0.5 * (beta + beta_hi), mu_lo, evaluations)


def _classified(value: float, mu: np.ndarray, evaluations: int) -> Onset:
    """The Onset at ``value`` from the multipliers just below it (the critical one leads)."""
    critical = complex(mu[0])
    critical = critical.conjugate() if critical.imag < 0 else critical
    if abs(critical.imag) > REAL_TOLERANCE:
        return Onset(value, "neimark_sacker", critical, float(np.angle(critical) / (2 * np.pi)), evaluations)
    kind = "fold" if critical.real > 0 else "period_doubling"
    return Onset(value, kind, critical, float("nan"), evaluations)
