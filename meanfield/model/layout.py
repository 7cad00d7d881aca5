"""The mean-field map in math-first form, the state layout, and the arrays the kernels consume.

State (spec §1.2): the attention window A (D×M, row 0 newest, D <= L) and the PE window Π (L×P, row 0 =
position code of the token generated in the next step). :func:`mean_field_step` is a plain-numpy
transcription of spec §1.3 that reads like the paper; the numba kernels in :mod:`meanfield.kernels`
compute the same map with the window cached, and the tests check one against the other.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import CONTROL_PARAMETERS, SCALAR_PARAMETERS, ModelSpec
from .errors import ConfigError
from .weights import FEATURES, sign_patterns

#: Observables a run can record, in kernel order (spec §1.3 step 8).
OBSERVABLES = ("att", "mo", "mo_se", "mv", "mq", "mk")


def position_code(n: int, pe_bits: int) -> np.ndarray:
    """pos(n) = 2·bits(n) - 1 with P binary digits, most significant first (spec §1.2)."""
    return np.array([2.0 * ((n >> (pe_bits - 1 - i)) & 1) - 1.0 for i in range(pe_bits)])


@dataclass(frozen=True, eq=False)
class State:
    """A start or final state: attention window ``att`` (D×M, newest first) and PE window ``pe`` (L×P).

    ``control`` (optional, 3×M) is the PID controller's state [r, I, e_prev] (issue 5): a controlled run's
    final state carries it, and a controlled run started from it continues the loop (same reference,
    integral and previous error) instead of restarting with I = 0.
    """

    att: np.ndarray
    pe: np.ndarray
    control: np.ndarray | None = None

    def __post_init__(self):
        if self.control is not None:
            control = np.array(self.control, dtype=np.float64, ndmin=2)
            if control.shape[0] != 3 or not np.all(np.isfinite(control)):
                raise ConfigError(f"start.control: {control.tolist()} is not allowed: must be 3 finite rows "
                                  "[reference, integral, previous error] of M entries")
            control.setflags(write=False)
            object.__setattr__(self, "control", control)
        att = np.array(self.att, dtype=np.float64, ndmin=2)
        pe = np.array(self.pe, dtype=np.float64).reshape(len(self.pe), -1) if len(self.pe) else np.zeros((0, 0))
        for key, arr in (("att", att), ("pe", pe)):
            if not np.all(np.isfinite(arr)):
                raise ConfigError(f"start.{key}: {arr.tolist()} is not allowed: entries must be finite")
        if not np.all(np.isin(pe, (-1.0, 1.0))):
            raise ConfigError(f"start.pe: {pe.tolist()} is not allowed: entries must be +1 or -1")
        att.setflags(write=False)
        pe.setflags(write=False)
        object.__setattr__(self, "att", att)
        object.__setattr__(self, "pe", pe)

    def check(self, model: ModelSpec) -> "State":
        """Raise ConfigError unless this state fits ``model`` (D in 1..L rows of M, L×P PE window)."""
        n_features, context, pe_bits = model.n_features, model.context, model.pe_bits
        depth = self.att.shape[0]
        if self.att.shape[1] != n_features or not 1 <= depth <= context:
            raise ConfigError(f"start.att: shape {self.att.shape} is not allowed: must be (D, M) with "
                              f"1 <= D <= L = {context} and M = {n_features}")
        if pe_bits and self.pe.shape != (context, pe_bits):
            raise ConfigError(f"start.pe: shape {self.pe.shape} is not allowed: must be (L, P) = "
                              f"({context}, {pe_bits})")
        if self.control is not None and self.control.shape != (3, n_features):
            raise ConfigError(f"start.control: shape {self.control.shape} is not allowed: must be (3, M) = "
                              f"(3, {n_features})")
        return self

    @classmethod
    def from_token(cls, model: ModelSpec, x0) -> "State":
        """The reference's start from a token x0 ∈ {±1}^(N_se+P) (spec §1.4).

        A = [m^v_0] with m^v_0 = w (x0_se·W^v_se)/N_se + ε (x0_pe·W^v_PE)/P (the last P entries of x0 are
        its PE bits); Π = [pos(0), pos(L-1), ..., pos(1)]. x0 itself is not in the attended window.
        """
        if model.weights is None:
            raise ConfigError("start.token: this model has no weight matrices (built from tables); "
                              "give an explicit state instead")
        x0 = np.asarray(x0, dtype=np.float64)
        w_v = np.asarray(model.weights["v"], dtype=np.float64)
        if x0.shape != (w_v.shape[1],) or not np.all(np.isin(x0, (-1.0, 1.0))):
            raise ConfigError(f"start.token: {x0.shape} is not allowed: must be {w_v.shape[1]} entries of ±1")
        pe_bits = model.pe_bits
        n_se = w_v.shape[1] - pe_bits
        w = 1 - model.epsilon
        semantic = w * (w_v[:, :n_se] @ x0[:n_se]) / n_se
        pe_part = (1 - w) * (w_v[:, n_se:] @ x0[n_se:]) / pe_bits if pe_bits else 0.0
        positions = [position_code(n % 2 ** pe_bits, pe_bits) for n in [0] + list(range(model.context - 1, 0, -1))]
        return cls(att=(semantic + pe_part)[None, :], pe=np.array(positions).reshape(model.context, pe_bits))

    def to_dict(self) -> dict:
        out = {"att": self.att.tolist(), "pe": self.pe.tolist()}
        if self.control is not None:
            out["control"] = self.control.tolist()
        return out


def pattern_token(model: ModelSpec, row: int = 0, feature: str = "o", reset_pe: bool = False) -> np.ndarray:
    """Token x0 = W^feature[row] (the reference's ``ini_token_idx`` start); ``reset_pe`` sets its PE bits
    to -1 = pos(0), as the bifurcation script does (spec §4.2)."""
    if model.weights is None:
        raise ConfigError("start.token: this model has no weight matrices to take a token from")
    if feature not in FEATURES or not 0 <= row < model.n_features:
        raise ConfigError(f"start.token: row={row!r}, feature={feature!r} not allowed: feature in "
                          f"{list(FEATURES)}, row in 0..{model.n_features - 1}")
    x0 = np.array(model.weights[feature][row], dtype=np.float64)
    if reset_pe and model.pe_bits:
        x0[-model.pe_bits:] = -1.0
    return x0


def map_tables(model: ModelSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrays shared by every point of a batch: coefficients (4, J, M) in order o, v, q, k; sign
    patterns (J, M); PE weights (4, M, P)."""
    coef = np.stack([model.coefficients[a] for a in FEATURES])
    pe = np.stack([model.pe_weights[a] for a in FEATURES])
    return np.ascontiguousarray(coef), sign_patterns(model.n_features), np.ascontiguousarray(pe)


#: Layout of the per-point parameter vector the kernels read (meanfield.kernels.step P_* columns), followed
#: by M columns ``ref_0..ref_{M-1}``: the explicit PID reference, or NaN for r = κ·(newest start row).
PARAMETER_LAYOUT = ("beta", "gamma", "w", "eps_pe", "kp", "ki", "kd", "rho", "kappa", "i_max", "bound")
#: |ã_t| or |I_t| above this stops a controlled point and flags it divergent (issue 5 item 5). The
#: uncontrolled attention output is bounded by 1 (a convex combination of mean fields).
DIVERGENCE_BOUND = 1e6


def _control_columns(model: ModelSpec, values: dict, n_points: int) -> list:
    """Columns kp, ki, kd, ρ, κ, I_max (issue 5) with their checks, for :func:`batch_parameters`."""
    control = model.control
    cols = {name: values.get(f"control.{name}", np.full(n_points, float(getattr(control, name))))
            for name in CONTROL_PARAMETERS}
    rho, i_max = cols["rho"], cols["i_max"]
    if not np.all((rho >= 0) & (rho <= 1)):
        raise ConfigError(f"control.rho = {rho.tolist()[:8]} is not allowed: must be in [0, 1]")
    if not np.all(i_max > 0):
        raise ConfigError(f"control.i_max = {i_max.tolist()[:8]} is not allowed: must be > 0 (or inf)")
    return [cols[name] for name in CONTROL_PARAMETERS]


def _reference_columns(model: ModelSpec, n_points: int) -> np.ndarray:
    ref = model.control.reference
    if ref is None:
        return np.full((n_points, model.n_features), np.nan)
    if len(ref) != model.n_features:
        raise ConfigError(f"control.reference = {list(ref)} is not allowed: must have M = {model.n_features} entries")
    return np.tile(np.asarray(ref, dtype=np.float64), (n_points, 1))


def batch_parameters(model: ModelSpec, overrides: dict | None = None) -> np.ndarray:
    """Per-point scalars (n, len(PARAMETER_LAYOUT) + M) for ``model`` with some parameters varied.

    ``overrides`` maps names of :data:`meanfield.config.SCALAR_PARAMETERS` and ``control.<gain>``
    (:data:`meanfield.config.CONTROL_PARAMETERS`) to 1-D arrays of one length n. Each row is what the
    reference computes for that point (spec §1.1, §1.3): β = β_o·scaling_o, γ (set, or
    (1/√M)·β_att·scaling_att), w = 1 - ε and the PE weight 1 - w (the reference's ε); then the PID gains
    K_P, K_I, K_D, ρ, κ, I_max, :data:`DIVERGENCE_BOUND` and the reference columns (issue 5).
    """
    overrides = dict(overrides or {})
    allowed = SCALAR_PARAMETERS + tuple(f"control.{c}" for c in CONTROL_PARAMETERS)
    values = {}
    for key, column in overrides.items():
        if key not in allowed:
            raise ConfigError(f"parameter {key!r} is not allowed as a batch axis: known are {list(allowed)}")
        column = np.asarray(column, dtype=np.float64).reshape(-1)
        finite = np.isfinite(column) | ((column == np.inf) if key == "control.i_max" else False)
        if column.size == 0 or not np.all(finite):
            raise ConfigError(f"{key} = {column.tolist()[:8]} is not allowed: must be a non-empty array of finite numbers")
        values[key] = column
    sizes = {v.size for v in values.values()}
    if len(sizes) > 1:
        raise ConfigError(f"batch parameters have different lengths {sorted(sizes)}: all axes must have one length")
    n_points = sizes.pop() if sizes else 1
    if "epsilon" in values and not np.all((values["epsilon"] >= 0) & (values["epsilon"] <= 1)):
        raise ConfigError(f"epsilon = {values['epsilon'].tolist()[:8]} is not allowed: must be in [0, 1]")
    if "beta_att" in values and model.gamma is not None and "gamma" not in values:
        raise ConfigError(f"beta_att has no effect: gamma = {model.gamma} is set explicitly in the model")

    def get(key):
        return values.get(key, np.full(n_points, float(getattr(model, key))))

    if "gamma" in values or model.gamma is not None:
        gamma = get("gamma")
    else:
        gamma = (1 / np.sqrt(model.n_features)) * get("beta_att") * get("scaling_att")
    w = 1 - get("epsilon")
    control = _control_columns(model, values, n_points)
    return np.column_stack([get("beta_o") * get("scaling_o"), gamma, w, 1 - w, *control,
                            np.full(n_points, DIVERGENCE_BOUND), _reference_columns(model, n_points)])


def controlled(params: np.ndarray) -> np.ndarray:
    """Per point: True when a PID gain is non-zero (the kernels skip the control arithmetic otherwise)."""
    params = np.atleast_2d(params)
    return np.any(params[:, 4:7] != 0.0, axis=1)


def control_start(params: np.ndarray, att0: np.ndarray, starts=None) -> np.ndarray:
    """The resolved controller start [r, I_0, e_{-1}] per point, (n, 3, M) (issue 5).

    r = the explicit reference, else the reference carried by a controlled start State (continuation), else
    κ·A0[0] (newest start row = ã_{-1}); a fresh start has I_0 = 0 and e_{-1} = e_0 = r - ã_{-1}, a
    carried State its I and e_prev. (Sweeps with ``[continuation]`` hand off only the window, so there each
    point's controller restarts fresh from its own start.)
    """
    n_points, n_features = att0.shape[0], att0.shape[2]
    layout = len(PARAMETER_LAYOUT)
    out = np.zeros((n_points, 3, n_features))
    for i in range(n_points):
        carried = None if starts is None else starts[i].control
        explicit = params[i, layout:layout + n_features]
        if carried is not None:
            out[i] = carried
            if not np.any(np.isnan(explicit)):
                out[i, 0] = explicit
            continue
        out[i, 0] = explicit if not np.any(np.isnan(explicit)) else params[i, 8] * att0[i, 0]
        out[i, 2] = out[i, 0] - att0[i, 0]
    return out


def point_parameters(model: ModelSpec) -> np.ndarray:
    """:func:`batch_parameters` of a single point, shape (len(PARAMETER_LAYOUT),)."""
    return batch_parameters(model)[0]


def mean_field_step(model: ModelSpec, att: np.ndarray, pe: np.ndarray):
    """One iteration of the map, spec §1.3, in plain numpy (all rows recomputed, no caching).

    Returns ``(att_next, pe_next, recorded)`` with ``recorded`` a dict of the six observables.
    """
    coef, signs, w_pe = map_tables(model)
    beta, gamma, w, eps_pe = point_parameters(model)[:4]
    pe_bits = model.pe_bits
    depth = att.shape[0]
    # 1. tanh of the pattern overlaps of every window row: h[d, j] = tanh(β σ_j·A[d])
    h = np.tanh(beta * (att @ signs.T))
    # 2. mean fields m^α[d, a] = w Σ_j c^α[j, a] h[d, j] + ε Σ_i W^α_PE[a, i] Π[d, i] / P
    positional = (eps_pe * np.einsum("fai,di->fda", w_pe, pe[:depth]) / pe_bits) if pe_bits else 0.0
    semantic = w * np.einsum("fja,dj->fda", coef, h)
    m_o, m_v, m_q, m_k = semantic + positional
    # 3.-5. scores of the newest query against every key, softmax with the reference's +10 shift
    scores = gamma * (m_k @ m_q[0])
    weights = np.exp(scores - scores.max() + 10)
    weights /= weights.sum()
    att_new = weights @ m_v
    # 6.-7. shift the window, rotate the PE code
    att_next = np.vstack([att_new, att[:min(depth, model.context - 1)]])
    pe_next = np.roll(pe, 1, axis=0)
    recorded = dict(att=att_new, mo=m_o[0], mo_se=semantic[0, 0], mv=m_v[0], mq=m_q[0], mk=m_k[0])
    return att_next, pe_next, recorded


def controlled_step(model: ModelSpec, att: np.ndarray, pe: np.ndarray, ctrl: np.ndarray):
    """One iteration of the PID-controlled map (issue 5) in plain numpy, on top of :func:`mean_field_step`.

    ``ctrl`` = [r, I_{t-1}, e_{t-1}] (3×M; see :func:`control_start`). With a_t the uncontrolled output
    (spec §1.3 step 5) and ã_{t-1} = att[0]: e_t = r - ã_{t-1}, I_t = clip(ρ I_{t-1} + e_t, ±I_max),
    ã_t = a_t + K_P e_t + K_I I_t + K_D (e_t - e_{t-1}); ã_t replaces a_t in the window and in ``att``.
    Returns ``(att_next, pe_next, ctrl_next, recorded)``.
    """
    c = model.control
    ref, integral, prev_error = np.asarray(ctrl, dtype=np.float64)
    att_next, pe_next, recorded = mean_field_step(model, att, pe)
    error = ref - att[0]
    integral = np.clip(c.rho * integral + error, -c.i_max, c.i_max)
    att_next = att_next.copy()
    att_next[0] = att_next[0] + c.kp * error + c.ki * integral + c.kd * (error - prev_error)
    recorded = dict(recorded, att=att_next[0])
    return att_next, pe_next, np.stack([ref, integral, error]), recorded


__all__ = ["State", "OBSERVABLES", "position_code", "pattern_token", "map_tables", "batch_parameters",
           "point_parameters", "mean_field_step", "PARAMETER_LAYOUT", "DIVERGENCE_BOUND", "controlled",
           "control_start", "controlled_step"]
