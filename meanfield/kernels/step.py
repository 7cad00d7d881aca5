"""The mean-field step and its tangent step over lanes: the one definition of the map (docs/model.md §3), its
tangent map (§4) and the PID law (§5), compiled for the CPU (:mod:`.cpu`: tiles of W points in lockstep,
vectorised over the lanes) and for CUDA (:mod:`.cuda`: one point per thread, one lane).

One file on purpose: the functions call each other, and numba's on-disk cache is keyed on the content of the
file a function is defined in.

:func:`build_steps` takes a JIT decorator (``numba.njit`` for the CPU, ``numba.cuda.jit(device=True)`` for CUDA) and
the model's dimensions, and returns the compiled functions as one :class:`Steps`. It composes them from named
stages, each a factory that compiles a few functions and returns them as a named tuple, the later stages calling
the earlier stages' functions:

* :func:`token_stage` (:class:`TokenStage`): the new token's mean fields, its value and key rows, attention
  (docs/model.md §3);
* :func:`tangent_stage` (:class:`TangentStage`): the token Jacobians, the attention gradient and the push of the
  tangent vectors (§4, §5.2);
* :func:`control_stage` (:class:`ControlStage`): the PID law (§5.1);
* :func:`lyapunov_stage` (:class:`LyapunovStage`): the tangent vectors' start, step and QR (§4.2);
* :func:`record_stage` (:class:`RecordStage`): a tile's start, records, final state and divergence freeze;
* :func:`tile_loop` (:class:`TileLoop`): the loop over a tile's steps;
* :func:`scratch_stage` (:class:`ScratchStage`): ``scratch_allocator``, which makes ``new_scratch``, the one
  allocator of both backends' scratch.

Every function takes arrays, or named tuples of arrays (the records of :mod:`meanfield.model.layout`, docs/model.md
§3.4), in and writes arrays out: no allocation (but ``new_scratch``), no Python objects. Every per-point array
carries the points on its LAST axis, the lanes (struct of arrays): ``att_ring[slot, a, lane]`` is feature a of
window slot ``slot`` of ``lane``. The loops over lanes are innermost, so LLVM turns every lane loop into packed
arithmetic; exp, tanh and log come from :mod:`.lane_math` for that reason. The model's dimensions L, M, J are either
compile-time constants or, built with 0, read from the arrays' shapes at run time (one compilation for every shape).
With constants, a lane loop wraps a few operations of one point, its sums in registers over the unrolled loops of
the dimensions (what suits the small windows and a GPU thread); with run-time sizes the six functions with such sums
come from :mod:`.lane_sums`, where a sum over features, patterns or rows accumulates in an array, one lane per
element, the lane loop innermost. Every lane adds the same terms in the same order either way, so the bits of a
result are the same. A lane's arithmetic never reads another lane, so results do not depend on the tile width, the
padding or the neighbours (docs/model.md §3.3); on the GPU the same functions run with one lane.

Window layout (docs/model.md §3.3): the attention window, and the value/key rows of the tokens computed from
it, live in ring buffers of L slots; logical row d (d = 0 newest) is slot ``(head + d) % L``, the same for
every lane of a tile. A token's value and key rows never change once computed (its PE code travels with it),
so a step computes the mean fields of one new token, L scores, one softmax and one weighted sum. Rows beyond
a lane's depth (a start window of fewer than L rows) are masked: score -inf, weight 0.

Per-point parameters ``params`` (K, lanes), the controller state ``ctrl`` (CTRL_ROWS, M, lanes) and the
observable codes follow :mod:`meanfield.model.layout`; the indices each stage uses, and the dimensions, are bound
as locals of its factory, so the compiled functions hold them as closure constants, which numba's cache key
includes (a change of the layout recompiles; an imported module global would not). Coefficient tables
``coef`` are (4, J, M) in feature order o, v, q, k; ``signs`` (J, M) the sign patterns (the rows G of the
tanh arguments in the sigma model, docs/model.md §10).

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

import numpy as np

from ..model import layout
from . import lane_math, lane_sums


class TokenStage(NamedTuple):
    """The functions of :func:`token_stage`."""

    slot_of: Callable
    positional_terms: Callable
    token_fields: Callable
    store_token: Callable
    attend: Callable


class TangentStage(NamedTuple):
    """The functions of :func:`tangent_stage`."""

    token_jacobian: Callable
    attention_gradient: Callable
    tangent_push: Callable


class ControlStage(NamedTuple):
    """The function of :func:`control_stage`."""

    control_step: Callable


class LyapunovStage(NamedTuple):
    """The functions of :func:`lyapunov_stage`."""

    orthonormalize_window: Callable
    orthonormalize_controlled: Callable
    start_tangents: Callable
    advance_tangents: Callable


class RecordStage(NamedTuple):
    """The functions of :func:`record_stage`."""

    record: Callable
    save_state: Callable
    start_tile: Callable
    freeze_diverged: Callable
    blank_records: Callable


class TileLoop(NamedTuple):
    """The function of :func:`tile_loop`."""

    run_tile: Callable


class Steps(NamedTuple):
    """What :func:`build_steps` returns: the compiled functions of every stage (the fields of
    :class:`TokenStage`, :class:`TangentStage`, :class:`ControlStage`, :class:`LyapunovStage`,
    :class:`RecordStage`, :class:`TileLoop` and :class:`ScratchStage`, by name)."""

    slot_of: Callable
    positional_terms: Callable
    token_fields: Callable
    store_token: Callable
    attend: Callable
    token_jacobian: Callable
    attention_gradient: Callable
    tangent_push: Callable
    control_step: Callable
    orthonormalize_window: Callable
    orthonormalize_controlled: Callable
    start_tangents: Callable
    advance_tangents: Callable
    record: Callable
    save_state: Callable
    start_tile: Callable
    freeze_diverged: Callable
    blank_records: Callable
    run_tile: Callable
    scratch_allocator: Callable


def build_steps(jit, ring, n_feat, n_patterns, leaf_jit=None, transcendentals=None):
    """Compile the lane step functions for windows of L = ``ring`` rows, M = ``n_feat`` features and
    J = ``n_patterns`` sign patterns; returns them as a :class:`Steps`. A size given as 0 is read from the
    arrays at run time instead (``ring = n_feat = n_patterns = 0``: one compilation for every shape).

    ``jit`` compiles the functions with loops (the CPU's tells LLVM that their array arguments do not
    overlap, which they never do), ``leaf_jit`` (default ``jit``) the small loop-free ones, which the CPU
    inlines into their callers. ``transcendentals`` = (exp, tanh, log) compiled with ``leaf_jit`` replaces
    :mod:`.lane_math` (the C library's for CUDA float32 and for comparisons).
    """
    L, M, J = int(ring), int(n_feat), int(n_patterns)
    leaf_jit = jit if leaf_jit is None else leaf_jit
    exp, tanh, log = lane_math.build(leaf_jit) if transcendentals is None else transcendentals
    tokens = token_stage(jit, leaf_jit, L, M, J, exp, tanh)
    tangents = tangent_stage(jit, leaf_jit, L, M, J, tokens)
    control = control_stage(jit, M)
    lyapunov = lyapunov_stage(jit, L, M, log, tokens, tangents)
    records = record_stage(jit, L, M, tokens, tangents)
    loop = tile_loop(jit, L, M, tokens, tangents, control, lyapunov, records)
    return Steps(**tokens._asdict(), **tangents._asdict(), **control._asdict(), **lyapunov._asdict(),
                 **records._asdict(), **loop._asdict(), **scratch_stage()._asdict())


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
    for L, M, J as in :func:`build_steps`; returns a :class:`TokenStage`."""
    F_O, F_V, F_Q, F_K = layout.F_O, layout.F_V, layout.F_Q, layout.F_K
    P_BETA, P_GAMMA, P_W, P_EPS_PE = layout.P_BETA, layout.P_GAMMA, layout.P_W, layout.P_EPS_PE
    P_W_MO_SE, P_RECTIFY_PE = layout.P_W_MO_SE, layout.P_RECTIFY_PE

    slot_of, softmax_weights = window_helpers(leaf_jit, exp)
    if L == 0:  # run-time sizes: the sums lane by lane (.lane_sums)
        token_fields, attend = lane_sums.token_sums(jit, tanh, slot_of, softmax_weights)

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

    return TokenStage(slot_of, positional_terms, token_fields, store_token, attend)


def tangent_stage(jit, leaf_jit, L, M, J, tokens):
    """The tangent map's pieces (docs/model.md §4, §5.2): ``token_jacobian``, ``attention_gradient`` and
    ``tangent_push``, calling ``tokens.slot_of`` (a :class:`TokenStage`); returns a :class:`TangentStage`."""
    F_Q = layout.F_Q
    P_BETA, P_GAMMA, P_W = layout.P_BETA, layout.P_GAMMA, layout.P_W
    P_KP, P_KI, P_KD, P_RHO = layout.P_KP, layout.P_KI, layout.P_KD, layout.P_RHO
    C_GATE = layout.C_GATE
    slot_of = tokens.slot_of
    if L == 0:  # run-time sizes: the sums lane by lane (.lane_sums)
        token_jacobian, attention_gradient, tangent_row = lane_sums.tangent_sums(jit, leaf_jit, slot_of)

    if L > 0:   # fixed sizes: the sums in registers over the unrolled loops (else: .lane_sums)
        @jit
        def token_jacobian(coef, f, signs, params, h, out, slot):
            """out[slot, a, b] = ∂m^f[a]/∂A[b] = w Σ_j c^f[j, a] β (1 - h_j²) σ_j[b] for the token whose tanh
            values are ``h`` (docs/model.md §4)."""
            for a in range(M):
                for b in range(M):
                    for lane in range(h.shape[1]):
                        beta = params[P_BETA, lane]
                        acc = 0.0
                        for j in range(J):
                            acc += coef[f, j, a] * (beta * (1.0 - h[j, lane] * h[j, lane])) * signs[j, b]
                        out[slot, a, b, lane] = params[P_W, lane] * acc

    if L > 0:   # fixed sizes: the sums in registers over the unrolled loops (else: .lane_sums)
        @jit
        def attention_gradient(params, fields, v_ring, k_ring, dv_ring, dk_ring, dq, head, p, att_new, grad, work):
            """grad[d, a, b] = ∂a_new[a]/∂A[d, b] over a full window (docs/model.md §4, chain rule); ``work``
            (at least M + 2, lanes) is scratch for the run-time sizes' form.

            Row d enters through its value and key, ∂a/∂m^v[d] = p[d] and ∂a/∂s[d] = p[d](m^v[d] - a) with
            ∂s[d]/∂m^k[d] = γ m^q; the newest row also enters through the query, ∂s[e]/∂m^q = γ m^k[e].
            """
            n_lanes = p.shape[1]
            for d in range(L):
                slot = slot_of(head, d, L)
                for b in range(M):
                    for lane in range(n_lanes):
                        q_dk = 0.0
                        for c in range(M):
                            q_dk += fields[F_Q, c, lane] * dk_ring[slot, c, b, lane]
                        for a in range(M):
                            grad[d, a, b, lane] = p[d, lane] * (dv_ring[slot, a, b, lane] + (v_ring[slot, a, lane]
                                                                - att_new[a, lane]) * params[P_GAMMA, lane] * q_dk)
            for a in range(M):
                for b in range(M):
                    for lane in range(n_lanes):
                        acc = 0.0
                        for e in range(L):
                            slot = slot_of(head, e, L)
                            k_dq = 0.0
                            for c in range(M):
                                k_dq += k_ring[slot, c, lane] * dq[0, c, b, lane]
                            acc += p[e, lane] * (v_ring[slot, a, lane] - att_new[a, lane]) * k_dq
                        grad[0, a, b, lane] += params[P_GAMMA, lane] * acc

    if L > 0:   # fixed sizes: the sums in registers over the unrolled loops (else: .lane_sums)
        @leaf_jit
        def tangent_row(grad, tangent, j, head, new_row):
            """new_row[a] = Σ_{d,b} grad[d, a, b] δA[d, b] for tangent vector j (window row d at ring slot
            ``slot_of(head, d)``): the vector's new newest row."""
            for a in range(M):
                for lane in range(new_row.shape[1]):
                    acc = 0.0
                    for d in range(L):
                        base = slot_of(head, d, L) * M
                        for b in range(M):
                            acc += grad[d, a, b, lane] * tangent[j, base + b, lane]
                    new_row[a, lane] = acc

    @jit
    def tangent_push(grad, tangent, head, new_row, params, ctrl, controlled):
        """Advance the tangent vectors ``tangent[j]`` (k, size, lanes; window slot s holds entries
        s·M..s·M+M-1): the newest row becomes grad·δA, the others shift (the Jacobian is a shift register
        except for its first block row). The new row goes to slot (head - 1) mod L, the ring's next head;
        ``new_row`` (M, lanes) is scratch.

        ``controlled``: the extended tangent map of the PID loop; vectors then have L·M + 2M entries: the
        window, δI, δe_prev. With δA0 the old newest row and g the clamp gate ``ctrl[C_GATE]``: δe' = -δA0,
        δI' = g (ρ δI - δA0), δã = grad·δA - (K_P + K_D) δA0 + K_I δI' - K_D δe_prev. With K_I = 0 the
        integral never acts on the dynamics; its direction is dropped (δI' = 0, exponent -inf) instead of
        contributing the spurious log ρ. The δe_prev directions always have exponent -inf (e_t = r - ã_{t-1}
        is a function of the window): the extended spectrum is the controlled window's plus M (or 2M) -inf.
        """
        n_rows = L if L > 0 else grad.shape[0]
        n_feat = M if M > 0 else grad.shape[1]
        new_head = head - 1 if head > 0 else n_rows - 1
        base_i = n_rows * n_feat
        base_e = base_i + n_feat
        n_lanes = tangent.shape[2]
        for j in range(tangent.shape[0]):
            tangent_row(grad, tangent, j, head, new_row)
            if controlled:
                for a in range(n_feat):
                    for lane in range(n_lanes):
                        kp, ki, kd = params[P_KP, lane], params[P_KI, lane], params[P_KD, lane]
                        old = tangent[j, head * n_feat + a, lane]
                        # I feeds back only through K_I: otherwise it is not a coordinate (λ = -inf)
                        d_int = (ctrl[C_GATE, a, lane] * (params[P_RHO, lane] * tangent[j, base_i + a, lane] - old)
                                 if ki != 0.0 else 0.0)
                        new_row[a, lane] += -(kp + kd) * old + ki * d_int - kd * tangent[j, base_e + a, lane]
                        tangent[j, base_i + a, lane] = d_int
                        tangent[j, base_e + a, lane] = -old
            for a in range(n_feat):
                for lane in range(n_lanes):
                    tangent[j, new_head * n_feat + a, lane] = new_row[a, lane]

    return TangentStage(token_jacobian, attention_gradient, tangent_push)


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


def lyapunov_stage(jit, L, M, log, tokens, tangents):
    """The tangent vectors of the Lyapunov exponents (docs/model.md §4.2): the QR of window-sized and of
    controlled (L·M + 2M) vectors, ``start_tangents`` and ``advance_tangents``, calling the functions of
    ``tokens`` (a :class:`TokenStage`) and ``tangents`` (a :class:`TangentStage`); returns a
    :class:`LyapunovStage`."""
    F_Q, C_RAW = layout.F_Q, layout.C_RAW
    SIZE, SIZE_CONTROLLED = L * M, L * M + 2 * M
    slot_of = tokens.slot_of
    token_jacobian, attention_gradient = tangents.token_jacobian, tangents.attention_gradient
    tangent_push = tangents.tangent_push

    def orthonormalizer(size):
        """``orthonormalize(tangent, log_norms, work, n_entries)`` for vectors of ``size`` entries (a compile-time
        constant; ``n_entries``, the same number, is not read)."""

        def orthonormalize(tangent, log_norms, work, n_entries):
            """Modified Gram-Schmidt on the k tangent vectors ``tangent[j]`` (``size`` entries); adds
            log|R_jj| to log_norms[j] (the QR of docs/model.md §4.2, up to signs). One pass suffices because
            vectors are re-orthonormalised after every step (bench/qr_interval.py, bench/RESULTS.md "QR
            interval": a product of even 2 Jacobians loses the most contracting directions of the model's wide
            spectrum, so QR runs every step by default). Vector j is reduced in ``work`` (size + 1, lanes; row
            ``size`` takes its norm), a separate array, so that the compiler sees it cannot overlap the vectors
            it is reduced against.

            The ring order of entries is irrelevant: inner products run over all entries. A vector that
            collapses to 0 (a singular map, e.g. β_o = 0) contributes -inf, like the reference's log 0.
            """
            for j in range(tangent.shape[0]):
                for lane in range(tangent.shape[2]):
                    for s in range(size):
                        work[s, lane] = tangent[j, s, lane]
                for i in range(j):
                    for lane in range(tangent.shape[2]):
                        dot = 0.0
                        for s in range(size):
                            dot += tangent[i, s, lane] * work[s, lane]
                        for s in range(size):
                            work[s, lane] -= dot * tangent[i, s, lane]
                for lane in range(tangent.shape[2]):
                    norm = 0.0
                    for s in range(size):
                        norm += work[s, lane] * work[s, lane]
                    norm = math.sqrt(norm)
                    scale = 1.0 / norm if norm > 0.0 else 1.0
                    for s in range(size):
                        tangent[j, s, lane] = work[s, lane] * scale
                    work[size, lane] = norm
                for lane in range(tangent.shape[2]):
                    norm = work[size, lane]
                    log_norms[j, lane] += log(norm)

        orthonormalize.__qualname__ += f"[{size}]"      # one symbol and cache entry per size
        return jit(orthonormalize)

    if SIZE > 0:
        orthonormalize_window = orthonormalizer(SIZE)
        orthonormalize_controlled = orthonormalizer(SIZE_CONTROLLED)
    else:       # run-time sizes: one function, the sizes its argument (.lane_sums)
        orthonormalize_window = orthonormalize_controlled = lane_sums.orthonormalizer(jit, log)

    @jit
    def start_tangents(tangent, head, att_ring):
        """Q = I at t = transient (docs/model.md §4.2): vector j is the unit vector of window entry j
        (logical row j // M, feature j % M, stored at ring slot ``slot_of(head, j // M)``), or of controller
        coordinate j >= L·M."""
        n_rows = L if L > 0 else att_ring.shape[0]
        n_feat = M if M > 0 else att_ring.shape[1]
        n_lanes = tangent.shape[2]
        for j in range(tangent.shape[0]):
            for s in range(tangent.shape[1]):
                for lane in range(n_lanes):
                    tangent[j, s, lane] = 0.0
            for d in range(n_rows):
                for a in range(n_feat):
                    if d * n_feat + a == j:
                        for lane in range(n_lanes):
                            tangent[j, slot_of(head, d, n_rows) * n_feat + a, lane] = 1.0
            if j >= n_rows * n_feat:
                for lane in range(n_lanes):
                    tangent[j, j, lane] = 1.0

    @jit
    def advance_tangents(shared, tile, scratch, block_sums, head, saved):
        """One tangent step (docs/model.md §4): the query Jacobian, the attention gradient at the uncontrolled
        output, the push of every vector (extended by the PID coordinates on a controlled tile, §5.2) and, every
        ``qr_every`` steps and at block ends, the QR whose log|R_jj| go to ``block_sums[block]`` (§4.2)."""
        n_rows = L if L > 0 else scratch.v_ring.shape[0]
        n_feat = M if M > 0 else scratch.v_ring.shape[1]
        params, ctrl, controlled = tile.params, tile.ctrl, tile.controlled
        token_jacobian(shared.coef, F_Q, shared.signs, params, scratch.h, scratch.dq, 0)
        raw = ctrl[C_RAW] if controlled else scratch.att_new
        attention_gradient(params, scratch.fields, scratch.v_ring, scratch.k_ring, scratch.dv_ring, scratch.dk_ring,
                           scratch.dq, head, scratch.p, raw, scratch.grad, scratch.qr_work)   # free until the QR
        tangent = scratch.tangent
        tangent_push(scratch.grad, tangent, head, scratch.new_row, params, ctrl, controlled)
        n_blocks, n_saved = block_sums.shape[0], shared.steps - shared.transient
        block = saved * n_blocks // n_saved
        if (saved + 1) % shared.qr_every == 0 or (saved + 1) * n_blocks // n_saved != block:
            if controlled:
                orthonormalize_controlled(tangent, block_sums[block], scratch.qr_work, n_rows * n_feat + 2 * n_feat)
            else:
                orthonormalize_window(tangent, block_sums[block], scratch.qr_work, n_rows * n_feat)

    return LyapunovStage(orthonormalize_window, orthonormalize_controlled, start_tangents, advance_tangents)


def record_stage(jit, L, M, tokens, tangents):
    """What a tile does besides stepping: ``record`` (the observables of a step), ``save_state`` (a lane's final
    state), ``start_tile``, ``freeze_diverged`` (docs/model.md §5.3) and ``blank_records``, calling the functions of
    ``tokens`` (a :class:`TokenStage`) and ``tangents`` (a :class:`TangentStage`); returns a :class:`RecordStage`."""
    OBS_ATT, OBS_MO, OBS_MO_SE, OBS_MV, OBS_MQ = (layout.OBS_ATT, layout.OBS_MO, layout.OBS_MO_SE, layout.OBS_MV,
                                                  layout.OBS_MQ)
    F_O, F_V, F_Q, F_K = layout.F_O, layout.F_V, layout.F_Q, layout.F_K
    slot_of, positional_terms = tokens.slot_of, tokens.positional_terms
    token_fields, store_token, token_jacobian = tokens.token_fields, tokens.store_token, tangents.token_jacobian

    @jit
    def record(selection, att_new, fields, semantic_o, diverged_at, records, row):
        """records[row, n, a, lane] = observable ``selection[n]`` of this step; NaN for a lane whose control
        loop has diverged (``diverged_at[lane]`` >= 0)."""
        n_feat = M if M > 0 else att_new.shape[0]
        for n in range(selection.shape[0]):
            obs = selection[n]
            if obs == OBS_ATT:
                source = att_new
            elif obs == OBS_MO:
                source = fields[F_O]
            elif obs == OBS_MO_SE:
                source = semantic_o
            elif obs == OBS_MV:
                source = fields[F_V]
            elif obs == OBS_MQ:
                source = fields[F_Q]
            else:
                source = fields[F_K]
            for a in range(n_feat):
                for lane in range(att_new.shape[1]):
                    records[row, n, a, lane] = source[a, lane] if diverged_at[lane] < 0.0 else math.nan

    @jit
    def save_state(att_ring, head, depth, ctrl, final_att, final_depth, final_ctrl, lane):
        """Copy lane ``lane``'s window (in logical order), depth and controller [r, I, e_prev] to the outputs."""
        n_rows = L if L > 0 else att_ring.shape[0]
        n_feat = M if M > 0 else att_ring.shape[1]
        for d in range(n_rows):
            slot = slot_of(head, d, n_rows)
            for a in range(n_feat):
                final_att[d, a, lane] = att_ring[slot, a, lane]
        for r in range(final_ctrl.shape[0]):
            for a in range(n_feat):
                final_ctrl[r, a, lane] = ctrl[r, a, lane]
        final_depth[lane] = depth[lane]

    @jit
    def start_tile(shared, tile, scratch, out):
        """Set up a tile before its first step: control statistics [0, -1], the PE terms of the start window,
        the value/key rings zeroed (rows beyond a lane's depth are read with weight 0: keep them finite) and
        filled with the tokens already in the start window, with their Jacobians when exponents are asked for
        (row 0 is redone at t = 0)."""
        n_rows = L if L > 0 else tile.att.shape[0]
        n_feat = M if M > 0 else tile.att.shape[1]
        coef, signs, params, att_ring = shared.coef, shared.signs, tile.params, tile.att
        stats = out.stats
        n_lanes = att_ring.shape[2]
        for lane in range(n_lanes):
            stats[0, lane] = 0.0
            stats[1, lane] = -1.0
        positional_terms(shared.w_pe, params, tile.pe0, scratch.pe_terms)
        for d in range(n_rows):
            for a in range(n_feat):
                for lane in range(n_lanes):
                    scratch.v_ring[d, a, lane] = 0.0
                    scratch.k_ring[d, a, lane] = 0.0
        for d in range(1, n_rows):
            token_fields(coef, signs, params, att_ring, d, scratch.pe_terms, scratch.h, scratch.fields,
                         scratch.semantic_o, False)
            store_token(scratch.fields, scratch.v_ring, scratch.k_ring, d)
            if out.block_sums.shape[1] > 0:
                token_jacobian(coef, F_V, signs, params, scratch.h, scratch.dv_ring, d)
                token_jacobian(coef, F_K, signs, params, scratch.h, scratch.dk_ring, d)

    @jit
    def freeze_diverged(t, head, lane, tile, out):
        """The divergence freeze (docs/model.md §5.3): lane ``lane``, whose loop passed the bound at step ``t``,
        gets ``t`` in ``stats[1]``, its state saved as it was and its block sums NaN. (Called only for that
        lane; the per-step bookkeeping of the lanes stays in the tile loop, since a call per step that passes
        the records slows the controlled step: bench/throughput.py, bench/RESULTS.md.)"""
        out.stats[1, lane] = t
        save_state(tile.att, head, tile.depth, tile.ctrl, out.final_att, out.final_depth, out.final_ctrl, lane)
        block_sums = out.block_sums
        for block in range(block_sums.shape[0]):
            for j in range(block_sums.shape[1]):
                block_sums[block, j, lane] = math.nan

    @jit
    def blank_records(records, first_row):
        """NaN in every record row from ``first_row`` on (every lane of the tile has diverged)."""
        n_feat = M if M > 0 else records.shape[2]
        for row in range(first_row, records.shape[0]):
            for n in range(records.shape[1]):
                for a in range(n_feat):
                    for lane in range(records.shape[3]):
                        records[row, n, a, lane] = math.nan

    return RecordStage(record, save_state, start_tile, freeze_diverged, blank_records)


def tile_loop(jit, L, M, tokens, tangents, control, lyapunov, records):
    """The tile loop ``run_tile`` (docs/model.md §3), calling the functions of the earlier stages: ``tokens``
    (:class:`TokenStage`), ``tangents`` (:class:`TangentStage`), ``control`` (:class:`ControlStage`),
    ``lyapunov`` (:class:`LyapunovStage`) and ``records`` (:class:`RecordStage`); returns a :class:`TileLoop`."""
    F_V, F_K, PROGRESS_STRIDE = layout.F_V, layout.F_K, layout.PROGRESS_STRIDE
    OBS_MO, OBS_MO_SE = layout.OBS_MO, layout.OBS_MO_SE
    token_fields, store_token, attend = tokens.token_fields, tokens.store_token, tokens.attend
    token_jacobian, control_step = tangents.token_jacobian, control.control_step
    start_tangents, advance_tangents = lyapunov.start_tangents, lyapunov.advance_tangents
    record, save_state, start_tile = records.record, records.save_state, records.start_tile
    freeze_diverged, blank_records = records.freeze_diverged, records.blank_records

    @jit
    def run_tile(shared, tile, scratch, out):
        """Iterate the lanes of a tile for ``shared.steps`` steps (docs/model.md §3), recording after
        ``shared.transient``. The arguments are the records of :mod:`meanfield.model.layout`: ``shared``
        (:class:`~meanfield.model.layout.BatchShared`), ``tile`` (:class:`~meanfield.model.layout.TileInput`, the
        tile's start, iterated in place), ``scratch`` (:class:`~meanfield.model.layout.TileScratch`, from
        ``new_scratch``) and ``out`` (:class:`~meanfield.model.layout.TileOutput`): records[(t - transient) //
        record_every, n] for the observables ``selection[n]``; with k = ``block_sums.shape[1]`` > 0 the k
        leading Lyapunov exponents (tangent vectors from Q = I at t = transient): log|R_jj| of a QR every
        ``qr_every`` steps and at block ends summed into ``block_sums[block, j]``; ``stats`` [max_t |I_t|, the
        step at which the loop diverged or -1]; the final window (logical order), depth and controller.

        A diverged lane is frozen there (``freeze_diverged`` of :func:`record_stage`): its final state is the last
        one within the bound, its remaining records and its block sums are NaN (so classification says
        ``divergent``). It keeps being iterated with its tile (its values are ignored); the tile stops when every
        lane has diverged.
        """
        n_rows = L if L > 0 else tile.att.shape[0]
        n_feat = M if M > 0 else tile.att.shape[1]
        coef, signs, params, att_ring = shared.coef, shared.signs, tile.params, tile.att
        # every array the loop uses is taken out of its record here, once, and what runs every step stays in the
        # loop: a field read costs a reference count, a call passing records a dozen machine words per array;
        # together they slow every step (measured against the positional kernel, docs/model.md §3.4, with
        # bench/throughput.py: bench/RESULTS.md)
        steps, transient, record_every = shared.steps, shared.transient, shared.record_every
        selection, depth, controlled = shared.selection, tile.depth, tile.controlled
        records, stats, block_sums = out.records, out.stats, out.block_sums
        h, fields, semantic_o, att_new = scratch.h, scratch.fields, scratch.semantic_o, scratch.att_new
        pe_terms, v_ring, k_ring = scratch.pe_terms, scratch.v_ring, scratch.k_ring
        p, softmax = scratch.p, scratch.softmax
        dv_ring, dk_ring, tangent = scratch.dv_ring, scratch.dk_ring, scratch.tangent
        ctrl, largest = tile.ctrl, scratch.largest
        n_vec = block_sums.shape[1]
        n_alive = att_ring.shape[2]
        reached = shared.progress
        with_o = False                   # m^o only where it is recorded
        for n in range(selection.shape[0]):
            with_o = with_o or selection[n] == OBS_MO or selection[n] == OBS_MO_SE
        start_tile(shared, tile, scratch, out)
        head = np.int64(0)               # not a literal: numba would compile the callees for head = 0 too
        for t in range(steps):
            if t % PROGRESS_STRIDE == 0:
                reached[0] = t
            # slot indices double as PE rows: the token of step t carries Π0[(-t) mod L] = Π0[head]
            token_fields(coef, signs, params, att_ring, head, pe_terms, h, fields, semantic_o, with_o)
            store_token(fields, v_ring, k_ring, head)
            attend(params, fields, v_ring, k_ring, head, depth, p, softmax, att_new)
            saved = t - transient
            if controlled:
                control_step(params, att_ring, head, att_new, ctrl, largest)
                for lane in range(att_ring.shape[2]):
                    if stats[1, lane] >= 0.0:
                        continue                          # frozen earlier
                    if largest[lane] < 0.0:
                        freeze_diverged(t, head, lane, tile, out)
                        n_alive -= 1
                    else:
                        stats[0, lane] = max(stats[0, lane], largest[lane])
                if n_alive == 0:
                    blank_records(records, (max(saved, 0) + record_every - 1) // record_every)
                    break
            if saved >= 0 and saved % record_every == 0:
                record(selection, att_new, fields, semantic_o, stats[1], records, saved // record_every)
            if n_vec > 0 and saved >= -n_rows:
                # the rows in the window when tangent dynamics start need their token Jacobians
                token_jacobian(coef, F_V, signs, params, h, dv_ring, head)
                token_jacobian(coef, F_K, signs, params, h, dk_ring, head)
            if n_vec > 0 and saved >= 0:
                if saved == 0:
                    start_tangents(tangent, head, att_ring)
                advance_tangents(shared, tile, scratch, block_sums, head, saved)
            # the new output becomes the newest row (ring slot head - 1); inline, since a call per step is slower
            # (bench/throughput.py, bench/RESULTS.md)
            head = head - 1 if head > 0 else n_rows - 1
            for lane in range(att_ring.shape[2]):
                for a in range(n_feat):
                    att_ring[head, a, lane] = att_new[a, lane]
                depth[lane] = min(depth[lane] + 1, n_rows)
        for lane in range(att_ring.shape[2]):
            if stats[1, lane] < 0.0:
                save_state(att_ring, head, depth, ctrl, out.final_att, out.final_depth, out.final_ctrl,
                           lane)

    return TileLoop(run_tile)


class ScratchStage(NamedTuple):
    """The function of :func:`scratch_stage`."""

    scratch_allocator: Callable


def scratch_stage():
    """The scratch allocator (sizes are its arguments); returns a :class:`ScratchStage`."""

    def scratch_allocator(array, dtype, allocator_jit):
        """``new_scratch(lanes, vectors, n_rows, n_feat, n_pat, n_entries, qr_rows, jac_rows, jac_feat)``: the
        :class:`~meanfield.model.layout.TileScratch` of a tile of ``lanes`` lanes, ``vectors`` tangent vectors of
        ``n_entries`` = L·M + 2M entries (whether or not the tile is controlled; the window's L·M come first) and
        ``qr_rows`` = ``n_entries`` + 1 rows of QR work, for L = ``n_rows``, M = ``n_feat``, J = ``n_pat``; the
        token Jacobians and the window gradient are (``jac_rows``, ``jac_feat``, ``jac_feat``): (L, M, M) when
        exponents are computed, (1, 1, 1) otherwise (they are read only by the tangent map; at M = 64, L = 16 the
        four would take 1.5 MiB a lane). Every array is made by ``array(shape, dtype)`` and the function compiled
        with ``allocator_jit``: ``numpy.empty`` on the CPU; on CUDA a per-thread local array, whose shape must be
        a compile-time constant, so there ``new_scratch`` is inlined (numba IR) into a caller that passes every
        size as a literal (hence the derived sizes among the arguments: an expression would not be one).
        ``run_tile`` takes the number of exponents from the output's block sums: a batch without exponents
        allocates 1 vector (a GPU rejects empty local arrays)."""

        @allocator_jit
        def new_scratch(lanes, vectors, n_rows, n_feat, n_pat, n_entries, qr_rows, jac_rows, jac_feat):
            return layout.TileScratch(
                array((4, n_rows, n_feat, lanes), dtype), array((n_pat, lanes), dtype),
                array((4, n_feat, lanes), dtype), array((n_feat, lanes), dtype),
                array((n_rows, n_feat, lanes), dtype), array((n_rows, n_feat, lanes), dtype),
                array((n_rows, lanes), dtype), array((n_feat, lanes), dtype),
                array((jac_rows, jac_feat, jac_feat, lanes), dtype),
                array((jac_rows, jac_feat, jac_feat, lanes), dtype),
                array((1, jac_feat, jac_feat, lanes), dtype),
                array((jac_rows, jac_feat, jac_feat, lanes), dtype),
                array((vectors, n_entries, lanes), dtype), array((n_feat, lanes), dtype), array((2, lanes), dtype),
                array((lanes,), dtype), array((qr_rows, lanes), dtype))

        return new_scratch

    return ScratchStage(scratch_allocator)
