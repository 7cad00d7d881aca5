"""PID-controlled attention (docs/model.md §5): the variants and the two properties PIDformer claims, measured
over token steps instead of layers.

The control law is that of docs/model.md §5.1: with a_t the uncontrolled attention output (docs/model.md §3
step 5), e_t = r - ã_{t-1}, I_t = ρ I_{t-1} + e_t (|I| <= I_max),
ã_t = a_t + K_P e_t + K_I I_t + K_D (e_t - e_{t-1}); gains live in :class:`meanfield.model.spec.Control` and are
sweep axes (``control.kp`` ...). This module measures, per variant:

* representation collapse: :func:`effective_rank` of the L×M attention window (Roy & Vetterli: exp of the
  entropy of the normalised singular values, 1 = all rows parallel, min(L, M) = no collapse), averaged over
  time, and :func:`token_spread`, the spread of the token mean fields m^{o,se} over the L tokens of the window;
* robustness (:func:`robustness`): the start state perturbed by δ in several random directions; the
  time-averaged distance between the perturbed and unperturbed trajectories (att), and the distance between
  their attractors, the 1-Wasserstein distance of the recorded m^{o,se} distributions;
* wind-up: max_t |I_t| (only meaningful when K_I != 0) and the divergent flag of the kernel.

Non-finite values never leave this module: a divergent point is reported by its flag and its metrics are NaN
in arrays, left out of averages.
"""
from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from ..model.layout import batch_parameters, control_start
from ..model.state import State
from ..simulation import simulate_batch

#: The variants compared by default: gains of :class:`meanfield.model.spec.Control` (none, P, PI, PD, PID).
VARIANTS = {
    "none": {},
    "P": {"kp": 0.3},
    "PI": {"kp": 0.3, "ki": 0.1, "rho": 0.95},
    "PD": {"kp": 0.3, "kd": 0.2},
    "PID": {"kp": 0.3, "ki": 0.1, "kd": 0.2, "rho": 0.95},
}
#: Perturbation sizes and number of random directions of :func:`robustness`.
DELTAS = (1e-6, 1e-3, 1e-1)
DIRECTIONS = 4


def variant(model, gains):
    """``model`` with the PID gains ``gains`` (a name of :data:`VARIANTS` or a dict of Control fields)."""
    if isinstance(gains, str):
        if gains not in VARIANTS:
            raise ConfigError(f"variant = {gains!r} is not allowed: choose from {list(VARIANTS)} or give gains")
        gains = VARIANTS[gains]
    overrides = {f"control.{k}": 0.0 for k in ("kp", "ki", "kd")}
    overrides.update({f"control.{k}": v for k, v in gains.items()})
    return model.replace(**overrides)


def _windows(series: np.ndarray, context: int) -> np.ndarray:
    """Sliding windows of the last ``context`` rows: (..., T, M) -> (..., T - L + 1, L, M), newest last."""
    view = np.lib.stride_tricks.sliding_window_view(series, context, axis=-2)
    return np.swapaxes(view, -1, -2)


def effective_rank(att: np.ndarray, context: int) -> np.ndarray:
    """Time-averaged effective rank of the L×M attention window built from a recorded ``att`` series.

    ``att`` (..., T, M) recorded every step (row t = ã_t, so rows t-L+1..t are the window after step t).
    Per window: p = σ / Σσ of its singular values, erank = exp(-Σ p log p). Returns (...,): NaN where the
    series is not finite (a divergent point) or shorter than L.
    """
    att = np.asarray(att, dtype=np.float64)
    if att.shape[-2] < context:
        return np.full(att.shape[:-2], np.nan)
    sv = np.linalg.svd(np.nan_to_num(_windows(att, context), nan=0.0, posinf=0.0, neginf=0.0), compute_uv=False)
    total = sv.sum(axis=-1, keepdims=True)
    p = np.divide(sv, total, out=np.zeros_like(sv), where=total > 0)
    entropy = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1)
    out = np.exp(entropy).mean(axis=-1)
    return np.where(np.all(np.isfinite(att), axis=(-1, -2)), out, np.nan)


def token_spread(fields: np.ndarray, context: int) -> np.ndarray:
    """Time-averaged spread of the token mean fields over the window: RMS over features of the standard
    deviation over the L tokens, ``fields`` (..., T, M) recorded every step (e.g. ``mo_se``). 0 = all tokens
    of the window carry the same representation (collapse). NaN for non-finite series."""
    fields = np.asarray(fields, dtype=np.float64)
    if fields.shape[-2] < context:
        return np.full(fields.shape[:-2], np.nan)
    windows = _windows(np.nan_to_num(fields, nan=0.0, posinf=0.0, neginf=0.0), context)
    spread = np.sqrt(np.mean(np.var(windows, axis=-2), axis=-1)).mean(axis=-1)
    return np.where(np.all(np.isfinite(fields), axis=(-1, -2)), spread, np.nan)


def _wasserstein(a: np.ndarray, b: np.ndarray) -> float:
    """1-Wasserstein distance of two equal-size samples (mean |sorted a - sorted b|)."""
    return float(np.mean(np.abs(np.sort(a) - np.sort(b))))


def perturbed_starts(model, state, deltas=DELTAS, directions: int = DIRECTIONS, seed: int = 0) -> list:
    """``state`` and its perturbations state.att + δ u for each δ and ``directions`` random unit directions u
    of the window (Frobenius norm 1; the same directions for every δ). Order: unperturbed, then δ-major.

    The controller keeps the unperturbed reference r (a perturbation of the start must not move the set
    point): perturbed starts carry [r, I_0, r - ã_{-1}] (fresh start, e_{-1} = e_0) or the state's own
    carried controller.
    """
    rng = np.random.default_rng(seed)
    units = rng.standard_normal((directions,) + state.att.shape)
    units /= np.linalg.norm(units.reshape(directions, -1), axis=1)[:, None, None]
    ctrl = control_start(batch_parameters(model), state.att[None], [state])[0]
    starts = [state]
    for delta in deltas:
        for u in units:
            att = state.att + delta * u
            control = ctrl if state.control is not None else np.stack([ctrl[0], ctrl[1], ctrl[0] - att[0]])
            starts.append(State(att=att, pe=state.pe, control=control))
    return starts


def robustness(model, betas, steps: int = 4000, transient: int = 2000, *, start=None, deltas=DELTAS,
               directions: int = DIRECTIONS, seed: int = 0) -> dict:
    """Perturb the start state and measure the long-time distance to the unperturbed run (docs/model.md §5.4).

    For every β_o in ``betas``: runs from ``start`` (default: the model's checkpoint) and from its
    perturbations (:func:`perturbed_starts`), recorded after ``transient``. Returns arrays of shape
    (len(betas), len(deltas)) — median over directions — ``trajectory_distance`` (time average of
    ||ã_pert(t) - ã(t)||) and ``attractor_distance`` (mean over features of the 1-Wasserstein distance between
    the recorded m^{o,se} values), plus per β: ``divergent`` (any run diverged), ``max_integral``
    (unperturbed run; NaN without controller), ``effective_rank`` and ``token_spread`` of the unperturbed run.
    Divergent points get NaN metrics.
    """
    betas = np.atleast_1d(np.asarray(betas, dtype=np.float64))
    starts = perturbed_starts(model, start or model.checkpoint, deltas, directions, seed)
    n_runs = len(starts)
    result = simulate_batch(model, steps, transient, parameters={"beta_o": np.repeat(betas, n_runs)},
                            start=starts * len(betas), record=("att", "mo_se"))
    att = result.records["att"].reshape(len(betas), n_runs, -1, model.n_features)
    mo_se = result.records["mo_se"].reshape(att.shape)
    divergent = result.divergent.reshape(len(betas), n_runs).any(axis=1)
    traj = np.full((len(betas), len(deltas)), np.nan)
    attractor = np.full_like(traj, np.nan)
    for i in np.flatnonzero(~divergent):
        dist = np.linalg.norm(att[i, 1:] - att[i, :1], axis=-1).mean(axis=-1).reshape(len(deltas), directions)
        w1 = np.array([np.mean([_wasserstein(mo_se[i, k, :, a], mo_se[i, 0, :, a]) for a in range(model.n_features)])
                       for k in range(1, n_runs)]).reshape(len(deltas), directions)
        traj[i], attractor[i] = np.median(dist, axis=1), np.median(w1, axis=1)
    base = np.arange(len(betas)) * n_runs
    return {"beta_o": betas, "deltas": np.asarray(deltas), "trajectory_distance": traj,
            "attractor_distance": attractor, "divergent": divergent,
            "max_integral": (result.max_integral[base] if result.max_integral is not None
                             else np.full(len(betas), np.nan)),
            "effective_rank": np.where(divergent, np.nan, effective_rank(att[:, 0], model.context)),
            "token_spread": np.where(divergent, np.nan, token_spread(mo_se[:, 0], model.context))}


def nanmean(values) -> float:
    """Mean of the finite entries (NaN when there are none), without warnings."""
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else float("nan")


__all__ = ["VARIANTS", "DELTAS", "DIRECTIONS", "variant", "effective_rank", "token_spread", "perturbed_starts",
           "robustness", "nanmean"]
