"""The kernels' binary interface: the ONE place where the columns of the per-point parameter vector, the rows
of the controller state and the codes of observables and features are defined (docs/model.md §3.4).

:mod:`meanfield.kernels` reads these indices (never integer literals of its own), and everything that builds
kernel input goes through :func:`map_tables`, :func:`batch_parameters` and :func:`control_start`. The kernels'
interface is named too: a backend is called ``kernel(batch) -> output`` with a :class:`Batch` and returns a
:class:`BatchOutput`; the compiled tile loop takes :class:`BatchShared`, :class:`TileInput`, :class:`TileScratch`
and :class:`TileOutput`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import ConfigError
from .spec import CONTROL_PARAMETERS, SCALAR_PARAMETERS, ModelSpec
from .weights import FEATURES

#: Observables a run can record, in kernel order (docs/model.md §3.2); OBS_* are their codes.
OBSERVABLES = ("att", "mo", "mo_se", "mv", "mq", "mk")
OBS_ATT, OBS_MO, OBS_MO_SE, OBS_MV, OBS_MQ, OBS_MK = (OBSERVABLES.index(o) for o in OBSERVABLES)
#: Rows of the coefficient tables (4, J, M) and PE weights (4, M, P) of :func:`map_tables`: o, v, q, k.
F_O, F_V, F_Q, F_K = (FEATURES.index(f) for f in ("o", "v", "q", "k"))

#: Columns of the per-point parameter vector, followed by M columns ``ref_0..ref_{M-1}``: the explicit PID
#: reference, or NaN for r = κ·(newest start row) (docs/model.md §3.4, §5.1).
#: ``w_mo_se`` is the factor of the recorded m^{o,se} (w, or 1 in the sigma model) and ``rectify_pe`` 1 where the
#: PE term is max(0, ·) (the sigma model, docs/model.md §10), else 0.
PARAMETER_LAYOUT = ("beta", "gamma", "w", "eps_pe", "kp", "ki", "kd", "rho", "kappa", "i_max", "bound", "w_mo_se",
                    "rectify_pe")
(P_BETA, P_GAMMA, P_W, P_EPS_PE, P_KP, P_KI, P_KD, P_RHO, P_KAPPA, P_IMAX,
 P_BOUND, P_W_MO_SE, P_RECTIFY_PE) = (PARAMETER_LAYOUT.index(c) for c in PARAMETER_LAYOUT)
#: First column of the explicit PID reference.
P_REFERENCE = len(PARAMETER_LAYOUT)
#: Rows of the per-point controller state: reference, integral, previous error (in and out of a kernel);
#: then scratch rows the kernels use, the clamp gate and the uncontrolled output a_t (docs/model.md §5.2).
CONTROL_STATE = ("reference", "integral", "previous_error", "gate", "raw")
C_REF, C_INT, C_ERR, C_GATE, C_RAW = (CONTROL_STATE.index(r) for r in CONTROL_STATE)
#: Rows of the controller state array per point, and how many of them are state (the rest is scratch).
CTRL_ROWS = len(CONTROL_STATE)
CTRL_STATE_ROWS = 3
#: |ã_t| or |I_t| above this stops a controlled point and flags it divergent (docs/model.md §5.3). The
#: uncontrolled attention output is bounded by 1 (a convex combination of mean fields).
DIVERGENCE_BOUND = 1e6

#: Every this many steps a tile writes the step it has reached to :attr:`BatchShared.progress`.
PROGRESS_STRIDE = 1024


def map_tables(model: ModelSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrays shared by every point of a batch: coefficients (4, J, M) in order o, v, q, k; the rows of the
    tanh arguments (J, M, :attr:`ModelSpec.tanh_signs`); PE weights (4, M, P)."""
    coef = np.stack([model.coefficients[a] for a in FEATURES])
    pe = np.stack([model.pe_weights[a] for a in FEATURES])
    # writable copies: a read-only array (a model's own) is another argument type to numba, another compilation
    signs = np.array(model.tanh_signs, dtype=np.float64, order="C")
    return np.ascontiguousarray(coef), signs, np.ascontiguousarray(pe)


def _control_columns(model: ModelSpec, values: dict, n_points: int) -> dict:
    """Columns kp, ki, kd, ρ, κ, I_max (docs/model.md §5.1) with their checks, for :func:`batch_parameters`."""
    control = model.control
    cols = {name: values.get(f"control.{name}", np.full(n_points, float(getattr(control, name))))
            for name in CONTROL_PARAMETERS}
    rho, i_max = cols["rho"], cols["i_max"]
    if not np.all((rho >= 0) & (rho <= 1)):
        raise ConfigError(f"control.rho = {rho.tolist()[:8]} is not allowed: must be in [0, 1]")
    if not np.all(i_max > 0):
        raise ConfigError(f"control.i_max = {i_max.tolist()[:8]} is not allowed: must be > 0 (or inf)")
    return cols


def _reference_columns(model: ModelSpec, n_points: int) -> np.ndarray:
    ref = model.control.reference
    if ref is None:
        return np.full((n_points, model.n_features), np.nan)
    if len(ref) != model.n_features:
        raise ConfigError(f"control.reference = {list(ref)} is not allowed: must have M = {model.n_features} entries")
    return np.tile(np.asarray(ref, dtype=np.float64), (n_points, 1))


def batch_parameters(model: ModelSpec, overrides: dict | None = None) -> np.ndarray:
    """Per-point scalars (n, len(PARAMETER_LAYOUT) + M) for ``model`` with some parameters varied.

    ``overrides`` maps names of :data:`meanfield.model.spec.SCALAR_PARAMETERS` and ``control.<gain>``
    (:data:`meanfield.model.spec.CONTROL_PARAMETERS`) to 1-D arrays of one length n. Each row is what the
    reference computes for that point (docs/model.md §1): β = β_o·scaling_o, γ (set, or
    (1/√M)·β_att·scaling_att), w = 1 - ε and the PE weight 1 - w (the reference's ε; ε itself in the sigma
    model, docs/model.md §10); then the PID gains K_P, K_I, K_D, ρ, κ, I_max, :data:`DIVERGENCE_BOUND`, the
    factor of m^{o,se} and the PE rectification flag, and the reference columns (docs/model.md §5.1), in the
    order of :data:`PARAMETER_LAYOUT`.
    """
    overrides = dict(overrides or {})
    allowed = SCALAR_PARAMETERS + tuple(f"control.{c}" for c in CONTROL_PARAMETERS)
    values = {}
    for key, column in overrides.items():
        if key not in allowed:
            raise ConfigError(f"parameter {key!r} is not allowed as a batch axis: known are {list(allowed)}")
        try:
            column = np.asarray(column, dtype=np.float64)
        except (TypeError, ValueError):
            raise ConfigError(f"{key} = {column!r} is not allowed: must be a 1-D array of numbers") from None
        if column.ndim > 1:
            raise ConfigError(f"{key}: an array of shape {column.shape} is not allowed: must be 1-D (one value "
                              "per point); flatten it yourself if that is what you mean")
        column = column.reshape(-1)
        finite = np.isfinite(column) | ((column == np.inf) if key == "control.i_max" else False)
        if column.size == 0 or not np.all(finite):
            raise ConfigError(f"{key} = {column.tolist()[:8]} is not allowed: "
                              "must be a non-empty array of finite numbers")
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
        return values[key] if key in values else np.full(n_points, float(getattr(model, key)))

    if "gamma" in values or model.gamma is not None:
        gamma = get("gamma")
    else:
        gamma = (1 / np.sqrt(model.n_features)) * get("beta_att") * get("scaling_att")
    w = 1 - get("epsilon")
    sigma = model.sigma is not None
    columns = {"beta": get("beta_o") * get("scaling_o"), "gamma": gamma, "w": w,
               "eps_pe": get("epsilon") if sigma else 1 - w,
               **_control_columns(model, values, n_points), "bound": np.full(n_points, DIVERGENCE_BOUND),
               "w_mo_se": np.ones(n_points) if sigma else w, "rectify_pe": np.full(n_points, float(sigma))}
    return np.column_stack([columns[name] for name in PARAMETER_LAYOUT] + [_reference_columns(model, n_points)])


def controlled(params: np.ndarray) -> np.ndarray:
    """Per point: True when a PID gain is non-zero (the kernels skip the control arithmetic otherwise)."""
    params = np.atleast_2d(params)
    return np.any(params[:, [P_KP, P_KI, P_KD]] != 0.0, axis=1)


def control_start(params: np.ndarray, att0: np.ndarray, starts=None) -> np.ndarray:
    """The resolved controller start [r, I_0, e_{-1}] per point, (n, 3, M) (docs/model.md §5.1).

    r = the explicit reference, else the reference carried by a controlled start State (continuation), else
    κ·A0[0] (newest start row = ã_{-1}); a fresh start has I_0 = 0 and e_{-1} = e_0 = r - ã_{-1}, a
    carried State its I and e_prev. (Sweeps with ``[continuation]`` hand off only the window, so there each
    point's controller restarts fresh from its own start.)
    """
    n_points, n_features = att0.shape[0], att0.shape[2]
    out = np.zeros((n_points, CTRL_STATE_ROWS, n_features))
    explicit = params[:, P_REFERENCE:P_REFERENCE + n_features]
    has_explicit = ~np.isnan(explicit).any(axis=1)
    out[:, C_REF] = np.where(has_explicit[:, None], explicit, params[:, P_KAPPA, None] * att0[:, 0])
    out[:, C_ERR] = out[:, C_REF] - att0[:, 0]
    for i, start in enumerate(starts or ()):
        if start.control is not None:
            out[i] = start.control
            if has_explicit[i]:
                out[i, C_REF] = explicit[i]
    return out


def point_parameters(model: ModelSpec) -> np.ndarray:
    """:func:`batch_parameters` of a single point, shape (len(PARAMETER_LAYOUT),)."""
    return batch_parameters(model)[0]


class Batch(NamedTuple):
    """The input of a batch kernel, ``kernel(batch) -> BatchOutput`` (docs/model.md §3.4): what every backend
    (:func:`meanfield.kernels.cpu.run_batch`, :func:`meanfield.kernels.cuda.run_batch`, ...) iterates.

    ``coef``, ``signs``, ``w_pe`` the tables shared by the batch (:func:`map_tables`); per point ``params``
    (n, K) (:data:`PARAMETER_LAYOUT`), ``pe0`` (n, L, P) the start PE windows, ``att0`` (n, L, M) the start
    windows (the first ``depth0[i]`` rows valid, the others zero) and ``ctrl0`` (n, 3, M) the controller start
    [r, I_0, e_{-1}] (:func:`control_start`); iterations t = 0..steps-1, recorded from t = ``transient`` every
    ``record_every`` for the observable codes ``selection``; ``n_exponents`` leading Lyapunov exponents, the
    tangent vectors re-orthonormalised every ``qr_every`` steps, their log-norms summed over ``n_blocks`` blocks;
    ``progress`` (optional, (1,) int64) receives the step reached (:class:`BatchShared`).
    """

    coef: np.ndarray
    signs: np.ndarray
    w_pe: np.ndarray
    params: np.ndarray
    pe0: np.ndarray
    att0: np.ndarray
    depth0: np.ndarray
    ctrl0: np.ndarray
    steps: int
    transient: int
    record_every: int
    selection: np.ndarray
    n_exponents: int
    qr_every: int
    n_blocks: int
    progress: np.ndarray | None = None

    @property
    def n_points(self) -> int:
        return self.att0.shape[0]

    @property
    def n_rows(self) -> int:
        """Recorded rows per point: iterations transient, transient + record_every, ... < steps."""
        return (self.steps - self.transient + self.record_every - 1) // self.record_every

    def points(self, lo: int, hi: int) -> Batch:
        """Points ``lo`` .. ``hi`` - 1 of the batch (every point is independent of the others)."""
        return self._replace(params=self.params[lo:hi], pe0=self.pe0[lo:hi], att0=self.att0[lo:hi],
                             depth0=self.depth0[lo:hi], ctrl0=self.ctrl0[lo:hi])


class BatchOutput(NamedTuple):
    """What a batch kernel returns, float64 host arrays with the point axis first: ``records`` (n, rows, n_sel,
    M), ``final_att`` (n, L, M) the final windows in logical order, ``final_depth`` (n,), ``block_sums`` (n, B,
    k) of log|R_jj| (docs/model.md §4.2), ``final_ctrl`` (n, 3, M) the final controller [r, I, e_prev] and
    ``stats`` (n, 2) [max_t |I_t|, the step at which the loop diverged or -1] (docs/model.md §5)."""

    records: np.ndarray
    final_att: np.ndarray
    final_depth: np.ndarray
    block_sums: np.ndarray
    final_ctrl: np.ndarray
    stats: np.ndarray

    @classmethod
    def concatenate(cls, parts) -> BatchOutput:
        """The outputs of consecutive pieces of one batch (:meth:`Batch.points`) as one output."""
        parts = list(parts)
        return parts[0] if len(parts) == 1 else cls(*(np.concatenate(arrays) for arrays in zip(*parts)))


# The compiled tile loop's records (:func:`meanfield.kernels.step.build_steps`, ``run_tile``): arrays with the
# lanes of a tile on their LAST axis; numba passes a named tuple of arrays and scalars as one argument.

class BatchShared(NamedTuple):
    """What every tile of a batch reads: the tables (:func:`map_tables`) and the run's lengths (:class:`Batch`);
    and ``progress`` (1,) int64, where every tile writes the step it has reached every :data:`PROGRESS_STRIDE`
    steps (read by progress displays while the kernel runs; tiles overwrite each other, any value will do)."""

    coef: np.ndarray
    signs: np.ndarray
    w_pe: np.ndarray
    steps: int
    transient: int
    record_every: int
    selection: np.ndarray
    qr_every: int
    progress: np.ndarray


class TileInput(NamedTuple):
    """A tile's start, iterated in place: ``params`` (K, W), ``pe0`` (L, P, W), the window ``att`` (L, M, W)
    in logical order (the first ``depth[lane]`` rows valid), ``depth`` (W,), the controller ``ctrl``
    (CTRL_ROWS, M, W) [r, I, e_prev] in its first rows, and whether the tile runs the PID loop,
    ``controlled`` (a tile is all controlled or all uncontrolled). The CPU backend holds every tile of a
    batch in one TileInput with a leading tile axis."""

    params: np.ndarray
    pe0: np.ndarray
    att: np.ndarray
    depth: np.ndarray
    ctrl: np.ndarray
    controlled: bool


class TileOutput(NamedTuple):
    """What a tile writes: ``records`` (rows, n_sel, M, W), ``block_sums`` (B, k, W), ``stats`` (2, W), the
    final window ``final_att`` (L, M, W), ``final_depth`` (W,) and controller ``final_ctrl`` (3, M, W) (the
    meaning of each: :class:`BatchOutput`). The CPU backend holds every tile's in one TileOutput with a
    leading tile axis (``records``: lanes of all tiles on the last axis)."""

    records: np.ndarray
    block_sums: np.ndarray
    stats: np.ndarray
    final_att: np.ndarray
    final_depth: np.ndarray
    final_ctrl: np.ndarray


class TileScratch(NamedTuple):
    """The tile loop's working arrays (W lanes, k tangent vectors), made by one allocator for both backends
    (``new_scratch`` of :func:`meanfield.kernels.step.build_steps`): PE terms (4, L, M), tanh values h (J,)
    (then their slopes, for the Jacobians), mean fields (4, M), the semantic m^o (M,), value/key rings (L, M),
    attention weights p (L,), the new output (M,), value/key/query Jacobians (L, M, M) / (1, M, M), the window
    gradient (L, M, M), tangent vectors (k, L·M + 2M, or 3·(L + 1)·M with the tangent images after them), their
    new rows (k, M), softmax max/sum (2,), the largest |I| (), the QR work (a vector's entries + 1) and its dot
    products and coefficients (1 or 1 + k(k + 1)/2), and the tangent images' scratch
    (:mod:`meanfield.kernels.tangent_images`): slopes and projections dh (2, J), their sums over the classes
    (4, M)."""

    pe_terms: np.ndarray
    h: np.ndarray
    fields: np.ndarray
    semantic_o: np.ndarray
    v_ring: np.ndarray
    k_ring: np.ndarray
    p: np.ndarray
    att_new: np.ndarray
    dv_ring: np.ndarray
    dk_ring: np.ndarray
    dq: np.ndarray
    grad: np.ndarray
    tangent: np.ndarray
    new_rows: np.ndarray
    softmax: np.ndarray
    largest: np.ndarray
    qr_work: np.ndarray
    qr_dots: np.ndarray
    dh: np.ndarray
    dfields: np.ndarray
