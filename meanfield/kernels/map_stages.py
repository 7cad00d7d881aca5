"""The map's stages (docs/model.md §3, §5.1), compiled by :func:`.step.build_steps`: the new token and attention
over the window (:func:`token_stage`) and the PID law (:func:`control_stage`).

PID control (docs/model.md §5.1; after PIDformer, Nguyen et al. 2024): with a_t the uncontrolled attention
output (§3 step 5) and ã the controlled one,

    e_t = r - ã_{t-1},   I_t = clamp(ρ I_{t-1} + e_t, ±I_max),   ã_t = a_t + K_P e_t + K_I I_t + K_D (e_t - e_{t-1}),

ã_t replacing a_t downstream (window, records, next token). ã_{-1} is the newest row of the start window,
I_0 = 0 and e_{-1} = e_0 for a fresh start; ``ctrl`` = [r, I, e_prev, scratch] comes in resolved
(:func:`meanfield.model.layout.control_start`). A tile is all controlled or all uncontrolled (the CPU
backend groups points so; a GPU thread is its own tile), and an uncontrolled tile skips the control
arithmetic, so the uncontrolled map is reproduced bitwise.
"""
import math
from collections.abc import Callable
from typing import NamedTuple

from ..model import layout
from . import lane_sums


class TokenStage(NamedTuple):
    """The functions of :func:`token_stage`."""

    slot_of: Callable
    positional_terms: Callable
    token_fields: Callable
    store_token: Callable
    attend: Callable
    value_query_key: Callable
    signed_sums: Callable


class ControlStage(NamedTuple):
    """The function of :func:`control_stage`."""

    control_step: Callable


def window_helpers(leaf_jit, exp):
    """The loop-free or small helpers of :func:`token_stage`, compiled with ``leaf_jit`` (inlined on the CPU):
    ``slot_of`` and ``softmax_weights``."""

    @leaf_jit
    def slot_of(head, d, n_rows):
        """Ring slot of logical window row d (a compare instead of an integer modulo)."""
        slot = head + d
        return slot - n_rows if slot >= n_rows else slot

    @leaf_jit
    def softmax_weights(p, top, total, n_rows):
        """p[d] = exp(s[d] - max + 10) / Σ: the scores ``p`` (n_rows, lanes) with their maxima ``top`` become the
        attention weights, the reference's max-shift +10 (docs/model.md §3, step 4); ``total`` starts at 0."""
        for d in range(n_rows):
            for lane in range(p.shape[1]):
                weight = exp(p[d, lane] - top[lane] + 10.0)
                p[d, lane] = weight
                total[lane] += weight
        for d in range(n_rows):
            for lane in range(p.shape[1]):
                p[d, lane] = p[d, lane] / total[lane]

    return slot_of, softmax_weights


def token_stage(jit, leaf_jit, L, M, J, exp, tanh):
    """The new token and attention over the window (docs/model.md §3): the ring index ``slot_of`` (compiled with
    ``leaf_jit``), ``positional_terms``, ``token_fields``, ``store_token`` and ``attend`` (compiled with ``jit``),
    for L, M, J as in :func:`.step.build_steps`; returns a :class:`TokenStage`."""
    F_O, F_V, F_Q, F_K = layout.F_O, layout.F_V, layout.F_Q, layout.F_K
    P_BETA, P_GAMMA, P_W, P_EPS_PE = layout.P_BETA, layout.P_GAMMA, layout.P_W, layout.P_EPS_PE
    P_W_MO_SE, P_RECTIFY_PE = layout.P_W_MO_SE, layout.P_RECTIFY_PE

    slot_of, softmax_weights = window_helpers(leaf_jit, exp)
    value_query_key = signed_sums = None    # fixed sizes: the tangent map forms Jacobians, never calls them
    if L == 0:  # run-time sizes: the sums lane by lane (.lane_sums)
        token_fields, attend, value_query_key, signed_sums = lane_sums.token_sums(jit, tanh, slot_of,
                                                                                  softmax_weights)

    @jit
    def positional_terms(w_pe, params, pe0, out):
        """out[f, r, a] = ε Σ_i W^f_PE[a, i] Π0[r, i] / P for every PE row r of the start window (docs/model.md §3
        step 2), or ε max(0, Σ_i W^f_PE[a, i] Π0[r, i] / P) where ``rectify_pe`` is set (the sigma model,
        docs/model.md §10); ``pe0`` (L, P, lanes)."""
        n_rows = L if L > 0 else out.shape[1]
        n_feat = M if M > 0 else out.shape[2]
        n_pe = pe0.shape[1]
        for lane in range(out.shape[3]):
            eps_pe = params[P_EPS_PE, lane]
            rectify = params[P_RECTIFY_PE, lane] != 0.0
            for f in range(4):
                for r in range(n_rows):
                    for a in range(n_feat):
                        acc = 0.0
                        for i in range(n_pe):
                            acc += w_pe[f, a, i] * pe0[r, i, lane]
                        if n_pe == 0:
                            out[f, r, a, lane] = 0.0
                        elif rectify:
                            out[f, r, a, lane] = eps_pe * max(0.0, acc / n_pe)
                        else:
                            out[f, r, a, lane] = eps_pe * acc / n_pe

    if L > 0:   # fixed sizes: the sums in registers over the unrolled loops (else: .lane_sums)
        @jit
        def token_fields(coef, signs, params, att_ring, slot, pe_terms, h, fields, semantic_o, with_o):
            """Mean fields m^o, m^v, m^q, m^k of the token generated from window row ``att_ring[slot]``, whose PE
            code is row ``slot`` of the start PE window (docs/model.md §3, steps 1-2).

            h[j] = tanh(β σ_j·A), m^f[a] = w Σ_j c^f[j, a] h[j] + (PE term); ``semantic_o`` receives
            m^{o,se} = w_mo_se Σ_j c^o[j, a] h[j] (the reference's ``mo_se``: factor w included, 1 in the sigma model).
            m^o and ``semantic_o`` are needed only ``with_o`` (only records read them): the run-time-size build
            (:mod:`.lane_sums`) skips them otherwise; here they cost a register each and are always computed.
            """
            n_lanes = h.shape[1]
            for j in range(J):
                for lane in range(n_lanes):
                    overlap = 0.0
                    for b in range(M):
                        overlap += signs[j, b] * att_ring[slot, b, lane]
                    h[j, lane] = tanh(params[P_BETA, lane] * overlap)
            for a in range(M):
                for lane in range(n_lanes):
                    acc_o = 0.0
                    acc_v = 0.0
                    acc_q = 0.0
                    acc_k = 0.0
                    for j in range(J):
                        acc_o += coef[F_O, j, a] * h[j, lane]
                        acc_v += coef[F_V, j, a] * h[j, lane]
                        acc_q += coef[F_Q, j, a] * h[j, lane]
                        acc_k += coef[F_K, j, a] * h[j, lane]
                    w = params[P_W, lane]
                    semantic_o[a, lane] = params[P_W_MO_SE, lane] * acc_o
                    fields[F_O, a, lane] = w * acc_o + pe_terms[F_O, slot, a, lane]
                    fields[F_V, a, lane] = w * acc_v + pe_terms[F_V, slot, a, lane]
                    fields[F_Q, a, lane] = w * acc_q + pe_terms[F_Q, slot, a, lane]
                    fields[F_K, a, lane] = w * acc_k + pe_terms[F_K, slot, a, lane]

    @jit
    def store_token(fields, v_ring, k_ring, slot):
        """The new token's value and key rows go to ring slot ``slot``."""
        n_feat = M if M > 0 else v_ring.shape[1]
        for a in range(n_feat):
            for lane in range(v_ring.shape[2]):
                v_ring[slot, a, lane] = fields[F_V, a, lane]
                k_ring[slot, a, lane] = fields[F_K, a, lane]

    if L > 0:   # fixed sizes: the sums in registers over the unrolled loops (else: .lane_sums)
        @jit
        def attend(params, fields, v_ring, k_ring, head, depth, p, softmax, att_new):
            """Scores s[d] = γ m^q·m^k[d] for the ``depth[lane]`` valid rows (the others -inf), softmax with the
            reference's max-shift +10, a = Σ_d p[d] m^v[d] (docs/model.md §3, steps 3-5). ``p`` receives the
            attention weights (the tangent step needs them); ``softmax`` (2, lanes) is scratch."""
            n_lanes = p.shape[1]
            top, total = softmax[0], softmax[1]
            for lane in range(n_lanes):
                top[lane] = -math.inf
                total[lane] = 0.0
            for d in range(L):
                slot = slot_of(head, d, L)
                for lane in range(n_lanes):
                    acc = 0.0
                    for b in range(M):
                        acc += fields[F_Q, b, lane] * k_ring[slot, b, lane]
                    score = params[P_GAMMA, lane] * acc if d < depth[lane] else -math.inf
                    p[d, lane] = score
                    top[lane] = max(top[lane], score)
            softmax_weights(p, top, total, L)
            for a in range(M):
                for lane in range(n_lanes):
                    acc = 0.0
                    for d in range(L):
                        acc += p[d, lane] * v_ring[slot_of(head, d, L), a, lane]
                    att_new[a, lane] = acc

    return TokenStage(slot_of, positional_terms, token_fields, store_token, attend, value_query_key, signed_sums)


def control_stage(jit, M):
    """The PID law (docs/model.md §5.1): ``control_step``; returns a :class:`ControlStage`."""
    P_KP, P_KI, P_KD, P_RHO, P_IMAX, P_BOUND = (layout.P_KP, layout.P_KI, layout.P_KD, layout.P_RHO, layout.P_IMAX,
                                                layout.P_BOUND)
    C_REF, C_INT, C_ERR, C_GATE, C_RAW = layout.C_REF, layout.C_INT, layout.C_ERR, layout.C_GATE, layout.C_RAW

    @jit
    def control_step(params, att_ring, head, att_new, ctrl, largest):
        """Apply the PID law to the uncontrolled output ``att_new`` (a_t) in place, giving ã_t.

        ã_{t-1} is the newest window row ``att_ring[head]``; ``ctrl`` rows C_REF, C_INT, C_ERR hold r,
        I_{t-1}, e_{t-1} and receive I_t, e_t; C_GATE receives dI_t/d(ρI + e) (0 where the clamp is active)
        and C_RAW the uncontrolled a_t (the tangent step needs both). ``largest[lane]`` receives max_a |I_t,a|,
        or -1 when |ã_t| or |I_t| passes the divergence bound (or is NaN): the loop has diverged.
        """
        n_feat = M if M > 0 else att_new.shape[0]
        for lane in range(att_new.shape[1]):
            kp, ki, kd = params[P_KP, lane], params[P_KI, lane], params[P_KD, lane]
            rho, i_max, bound = params[P_RHO, lane], params[P_IMAX, lane], params[P_BOUND, lane]
            most = 0.0
            diverged = False
            for a in range(n_feat):
                err = ctrl[C_REF, a, lane] - att_ring[head, a, lane]
                free = rho * ctrl[C_INT, a, lane] + err
                over = free > i_max
                under = free < -i_max
                integral = i_max if over else (-i_max if under else free)
                gate = 0.0 if over else (0.0 if under else 1.0)
                ctrl[C_RAW, a, lane] = att_new[a, lane]
                att_new[a, lane] = att_new[a, lane] + kp * err + ki * integral + kd * (err - ctrl[C_ERR, a, lane])
                ctrl[C_INT, a, lane] = integral
                ctrl[C_ERR, a, lane] = err
                ctrl[C_GATE, a, lane] = gate
                # a P or PD loop never reads I (it may drift without bound harmlessly); only |ã| then counts
                if not (abs(att_new[a, lane]) <= bound and (ki == 0.0 or abs(integral) <= bound)):
                    diverged = True
                most = max(most, abs(integral))
            largest[lane] = -1.0 if diverged else most

    return ControlStage(control_step)
