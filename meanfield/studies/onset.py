"""The rest cycle's stability along β_o (docs/onset.md): its first loss of stability and the kind of it, the
crossover where a multiplier comes close to +1 and turns away, and the birth of its mirror cycle — all read off the
rest cycle's branch followed by pseudo-arclength continuation (:mod:`meanfield.analysis.fixed_point_branch`,
:mod:`meanfield.analysis.stability_events`).

At small β_o every model settles on its rest cycle: the window repeats with the positional encoding's period L, a
fixed point of the L-step map Φ^L on the L·M-dimensional window (docs/model.md §4). Its Floquet multipliers are the
eigenvalues of the monodromy ∂Φ^L/∂A. Everything here runs on the compiled kernel, batched: Φ^L of the 2·L·M + 3
windows A, A ± h e_j (h = 1e-5: truncation ~h² and rounding ~1e-16/h, both ≲ 1e-10 relative) and A at β_o ± δ
(δ = 1e-6·max(1, β_o)) gives the image, the monodromy and ∂Φ^L/∂β_o in one batch of L steps.

Without its positional term (ε = 0) the map is odd in A (docs/model.md §3: the scores are even, the values odd), so
A → −A maps cycles to cycles; ε > 0 breaks it, and what would be a pitchfork of the rest cycle becomes a crossover
and the saddle-node birth of the mirror cycle near −A (docs/onset.md §1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..analysis.fixed_point_branch import FixedPointBranch
from ..analysis.stability_events import mirror_birth, stability_along
from ..errors import ConfigError
from ..model.spec import ModelSpec
from ..model.state import StartWindows, State
from ..options import Compute
from ..simulation import simulate_batch

#: Central-difference step of the monodromy in the window (module docstring).
DIFFERENCE_STEP = 1e-5
#: Relative central-difference step in β_o.
PARAMETER_STEP = 1e-6
#: Largest continuation step (arclength; |dβ_o/ds| ≤ 1) along the rest cycle's branch.
MAX_STEP = 0.1


class UnstableStart(ConfigError):
    """The rest cycle is not stable (or not found) at the start of the searched interval."""


@dataclass(frozen=True)
class RestCycleStability:
    """What the rest cycle's branch shows on an interval of β_o (docs/onset.md §1):

    ``onset`` the first loss of stability (NaN where none in the interval) and its ``kind`` ("neimark_sacker",
    "flip", "fold", "branch_point" or "none"), the ``critical`` multiplier there (Im ≥ 0) and the
    ``rotation_number`` arg μ / 2π of a Neimark–Sacker pair (turns per L steps); the ``crossover`` (β_o of the
    deepest interior minimum of 1 − max|μ| with a real positive leading multiplier, before the onset) and that
    minimum, ``closest_approach``; ``mirror_birth``, the β_o where the cycle found from −A is born in a
    saddle-node, and ``mirror_modulus``, that cycle's max|μ| where it was found (below 1: a second attractor); NaN
    where there is none; ``points`` on the followed branch and ``evaluations`` of the L-step map's linearisation.
    """

    onset: float
    kind: str
    critical: complex
    rotation_number: float
    crossover: float
    closest_approach: float
    mirror_birth: float
    mirror_modulus: float
    points: int
    evaluations: int


def cycle_images(model: ModelSpec, betas: np.ndarray, windows: np.ndarray, pe: np.ndarray) -> np.ndarray:
    """Φ^L of each window (n, L, M) at PE window ``pe`` and β_o = ``betas`` (n,), by the compiled kernel."""
    L = model.context
    run = simulate_batch(model, L, L - 1, parameters={"beta_o": np.asarray(betas, dtype=np.float64)},
                         start=StartWindows(att=windows, pe=pe), record=(), compute=Compute(progress=False))
    return np.asarray(run.final_att)


def l_step_family(model: ModelSpec, pe: np.ndarray):
    """Φ^L as a map family in β_o for :class:`~meanfield.analysis.fixed_point_branch.FixedPointBranch`: the flat
    window in, (image, monodromy, ∂Φ^L/∂β_o) out, the derivatives by central differences (module docstring)."""
    shape = (model.context, model.n_features)

    def family(state, beta, derivatives=True):
        window = np.asarray(state, dtype=np.float64).reshape(shape)
        if not derivatives:
            return cycle_images(model, [beta], window[None], pe)[0].ravel(), None, None
        n, delta = window.size, PARAMETER_STEP * max(1.0, abs(beta))
        shifts = DIFFERENCE_STEP * np.eye(n).reshape(n, *shape)
        batch = np.concatenate([window[None], window + shifts, window - shifts, window[None], window[None]])
        betas = np.full(2 * n + 3, float(beta))
        betas[-2:] = beta + delta, beta - delta
        images = cycle_images(model, betas, batch, pe).reshape(2 * n + 3, n)
        d_state = ((images[1:n + 1] - images[n + 1:2 * n + 1]) / (2 * DIFFERENCE_STEP)).T
        return images[0], d_state, (images[-2] - images[-1]) / (2 * delta)

    return family


def monodromy(model: ModelSpec, beta: float, window: np.ndarray, pe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Φ^L(A), ∂Φ^L/∂A) at window A (L, M): the image and the L·M-square monodromy by central differences."""
    image, d_state, _ = l_step_family(model, pe)(window, beta)
    return image.reshape(window.shape), d_state


def settled_window(model: ModelSpec, beta: float, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The window and PE window after ``steps`` steps (a multiple of L) from the all-(+1) token at β_o = ``beta``."""
    start = State.from_token(model, np.ones(model.weights["v"].shape[1]))
    run = simulate_batch(model, steps, steps - 1, parameters={"beta_o": np.array([float(beta)])}, start=start,
                         record=(), compute=Compute(progress=False))
    return np.asarray(run.final_att[0]), np.asarray(run.final_pe[0])


def rest_cycle(model: ModelSpec, beta: float, window: np.ndarray, pe: np.ndarray):
    """Newton on Φ^L(A) = A from ``window`` at β_o = ``beta``: (A, monodromy there), or None when it does not
    converge."""
    branch = FixedPointBranch(l_step_family(model, pe), window.size, max_step=MAX_STEP)
    point = branch.start(window, beta, 1.0)
    return None if point is None else (point.state.reshape(window.shape), point.matrix[:, :-1] + np.eye(window.size))


def _upper(mu: complex) -> complex:
    return complex(mu.real, abs(mu.imag))


def rest_stability(model: ModelSpec, interval=(0.25, 6.0), *, settle: int | None = None,
                   max_step: float = MAX_STEP) -> RestCycleStability:
    """Follow the rest cycle of ``model`` along β_o over ``interval`` and report its stability
    (:class:`RestCycleStability`, docs/onset.md §1–§2).

    The cycle is settled from the all-(+1) token at ``interval[0]`` (``settle`` steps, default 400·L), refound by
    Newton, then continued to its first loss of stability or the interval's end; the mirror cycle is sought from
    −A of the branch's points just past the crossover (or back from the last stable point where there is none)
    and continued down to its birth."""
    lo, hi = (float(v) for v in interval)
    if not 0 < lo < hi:
        raise ConfigError(f"interval = {interval!r} is not allowed: need 0 < start < stop")
    if model.weights is None:
        raise ConfigError("rest_stability: the model needs weight matrices (the token start); build it from weights")
    window, pe = settled_window(model, lo, settle or 400 * model.context)
    branch = FixedPointBranch(l_step_family(model, pe), window.size, max_step=max_step)
    first = branch.start(window, lo, 1.0)
    if first is None or first.margin <= 0:
        raise UnstableStart(f"interval = {interval!r} is not allowed: the rest cycle is not stable at β_o = {lo}")
    points, loss, crossover = stability_along(branch, first, hi)
    past = [p for p in points if p.value > crossover.value] if crossover is not None else []
    birth, modulus = mirror_birth(branch, past or points[::-1], lambda state: -state, lo, first)
    nan = math.nan
    return RestCycleStability(
        onset=nan if loss is None else loss.value, kind="none" if loss is None else loss.kind,
        critical=_upper(points[-1].multipliers[0]) if loss is None else loss.critical,
        rotation_number=nan if loss is None else loss.rotation_number,
        crossover=nan if crossover is None else crossover.value,
        closest_approach=nan if crossover is None else crossover.margin,
        mirror_birth=birth, mirror_modulus=modulus, points=len(points), evaluations=branch.evaluations)
