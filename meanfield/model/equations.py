"""The mean-field map and the PID law as they read in the paper: plain numpy, every window row recomputed.

:func:`mean_field_step` transcribes docs/model.md §3 (Poc-López & Aguilera, arXiv 2406.07247) and
:func:`controlled_step` the PID law of docs/model.md §5.1. The compiled kernels (:mod:`meanfield.kernels.step`)
compute the same map with the window cached; the tests check one against the other.
"""
from __future__ import annotations

import numpy as np

from .layout import P_BETA, P_EPS_PE, P_GAMMA, P_RECTIFY_PE, P_W, P_W_MO_SE, map_tables, point_parameters
from .spec import ModelSpec


def step_tables(model: ModelSpec) -> tuple:
    """What :func:`mean_field_step` reads from the model: (coefficients, sign patterns, PE weights, parameter
    vector); computed once by callers that step one model many times."""
    return (*map_tables(model), point_parameters(model))


def mean_field_step(model: ModelSpec, att: np.ndarray, pe: np.ndarray, tables: tuple | None = None):
    """One iteration of the map, docs/model.md §3, in plain numpy (all rows recomputed, no caching).

    ``tables`` is :func:`step_tables` of ``model`` (computed here when None). Returns
    ``(att_next, pe_next, recorded)`` with ``recorded`` a dict of the six observables.
    """
    coef, signs, w_pe, params = step_tables(model) if tables is None else tables
    beta, gamma, w, eps_pe = params[P_BETA], params[P_GAMMA], params[P_W], params[P_EPS_PE]
    pe_bits = model.pe_bits
    depth = att.shape[0]
    # 1. tanh of the pattern overlaps of every window row: h[d, j] = tanh(β σ_j·A[d])
    h = np.tanh(beta * (att @ signs.T))
    # 2. mean fields m^α[d, a] = w Σ_j c^α[j, a] h[d, j] + ε Σ_i W^α_PE[a, i] Π[d, i] / P (rectified: ε max(0, ·/P))
    positional = np.einsum("fai,di->fda", w_pe, pe[:depth]) if pe_bits else 0.0
    if pe_bits and params[P_RECTIFY_PE]:
        positional = eps_pe * np.maximum(0, positional / pe_bits)
    elif pe_bits:
        positional = eps_pe * positional / pe_bits
    table_sums = np.einsum("fja,dj->fda", coef, h)
    semantic = w * table_sums
    m_o, m_v, m_q, m_k = semantic + positional
    # 3.-5. scores of the newest query against every key, softmax with the reference's +10 shift
    scores = gamma * (m_k @ m_q[0])
    weights = np.exp(scores - scores.max() + 10)
    weights /= weights.sum()
    att_new = weights @ m_v
    # 6.-7. shift the window, rotate the PE code
    att_next = np.vstack([att_new, att[:min(depth, model.context - 1)]])
    pe_next = np.roll(pe, 1, axis=0)
    recorded = dict(att=att_new, mo=m_o[0], mo_se=params[P_W_MO_SE] * table_sums[0, 0], mv=m_v[0], mq=m_q[0], mk=m_k[0])
    return att_next, pe_next, recorded


def controlled_step(model: ModelSpec, att: np.ndarray, pe: np.ndarray, ctrl: np.ndarray):
    """One iteration of the PID-controlled map (docs/model.md §5.1) in plain numpy, on top of
    :func:`mean_field_step`.

    ``ctrl`` = [r, I_{t-1}, e_{t-1}] (3×M; see :func:`meanfield.model.layout.control_start`). With a_t the
    uncontrolled output (docs/model.md §3, step 5) and ã_{t-1} = att[0]: e_t = r - ã_{t-1},
    I_t = clip(ρ I_{t-1} + e_t, ±I_max), ã_t = a_t + K_P e_t + K_I I_t + K_D (e_t - e_{t-1}); ã_t replaces a_t in the
    window and in ``att``. Returns ``(att_next, pe_next, ctrl_next, recorded)``.
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
