"""The tangent map's stages (docs/model.md §4, §5.2), compiled by :func:`.step.build_steps`: the token Jacobians,
the attention gradient and the push of the tangent vectors (:func:`tangent_stage`), and the vectors' start, step
and QR for the Lyapunov exponents (:func:`lyapunov_stage`, §4.2), through the Jacobians or, at many features,
through the tangent images of :mod:`.tangent_images` (§4.1).
"""
import math
from collections.abc import Callable
from typing import NamedTuple

from ..model import layout
from . import lane_sums, tangent_images


class TangentStage(NamedTuple):
    """The functions of :func:`tangent_stage`."""

    tanh_slopes: Callable
    token_jacobian: Callable
    keeps_jacobians: Callable
    token_derivatives: Callable
    attention_gradient: Callable
    tangent_push: Callable
    push_rows: Callable


class LyapunovStage(NamedTuple):
    """The functions of :func:`lyapunov_stage`."""

    orthonormalize_window: Callable
    orthonormalize_controlled: Callable
    start_tangents: Callable
    advance_tangents: Callable


def tangent_stage(jit, leaf_jit, L, M, J, tokens):
    """The tangent map's pieces (docs/model.md §4, §5.2): ``tanh_slopes``, the token Jacobians and the attention
    gradient (:func:`fixed_size_sums` or :func:`.lane_sums.tangent_sums`), ``keeps_jacobians``,
    ``token_derivatives``, ``push_rows`` and ``tangent_push``, calling ``tokens.slot_of`` (a :class:`TokenStage`);
    returns a :class:`TangentStage`."""
    F_V, F_K = layout.F_V, layout.F_K
    P_BETA = layout.P_BETA
    P_KP, P_KI, P_KD, P_RHO = layout.P_KP, layout.P_KI, layout.P_KD, layout.P_RHO
    C_GATE = layout.C_GATE
    slot_of = tokens.slot_of
    if L == 0:  # run-time sizes: the sums lane by lane (.lane_sums)
        token_jacobian, attention_gradient, tangent_rows = lane_sums.tangent_sums(jit, leaf_jit, slot_of)
    else:
        token_jacobian, attention_gradient, tangent_rows = fixed_size_sums(jit, leaf_jit, L, M, J, slot_of)

    @jit
    def tanh_slopes(params, h):
        """h[j] = tanh(β σ_j·A) becomes the slope β (1 - h_j²) of tanh(β x) at the overlap σ_j·A, in place: what
        ``token_jacobian`` takes, computed once per token for its three Jacobians (docs/model.md §4)."""
        for j in range(h.shape[0]):
            for lane in range(h.shape[1]):
                h[j, lane] = params[P_BETA, lane] * (1.0 - h[j, lane] * h[j, lane])

    @jit
    def push_rows(tangent, head, n_rows, new_rows, params, ctrl, controlled):
        """Advance the tangent vectors ``tangent[j]`` (k, size, lanes; window slot s of the ``n_rows`` holds
        entries s·M..s·M+M-1) whose new newest rows are ``new_rows[j]`` (k, M, lanes; grad·δA): the new row goes
        to slot (head - 1) mod L, the ring's next head, the others shift (the Jacobian is a shift register except
        for its first block row).

        ``controlled``: the extended tangent map of the PID loop; vectors then have L·M + 2M entries: the
        window, δI, δe_prev. With δA0 the old newest row and g the clamp gate ``ctrl[C_GATE]``: δe' = -δA0,
        δI' = g (ρ δI - δA0), δã = grad·δA - (K_P + K_D) δA0 + K_I δI' - K_D δe_prev. With K_I = 0 the
        integral never acts on the dynamics; its direction is dropped (δI' = 0, exponent -inf) instead of
        contributing the spurious log ρ. The δe_prev directions always have exponent -inf (e_t = r - ã_{t-1}
        is a function of the window): the extended spectrum is the controlled window's plus M (or 2M) -inf.
        """
        n_feat = M if M > 0 else new_rows.shape[1]
        new_head = head - 1 if head > 0 else n_rows - 1
        base_i = n_rows * n_feat
        base_e = base_i + n_feat
        n_lanes = tangent.shape[2]
        for j in range(tangent.shape[0]):
            new_row = new_rows[j]
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

    @leaf_jit
    def keeps_jacobians(dv_ring):
        """Whether the tangent map runs through the token Jacobians: always with fixed sizes; with run-time sizes
        where ``run_tiles`` allocated them (more than one entry), i.e. where k exponents cost less so than by the
        tangent images (:mod:`.tangent_images`: 3·K·M² multiply-adds a token against 4·K·M a vector)."""
        return L > 0 or dv_ring.shape[0] * dv_ring.shape[1] > 1

    @jit
    def token_derivatives(coef, signs, params, h, dv_ring, dk_ring, slot):
        """h becomes the tanh slopes (``tanh_slopes``, which the tangent images take) and, where the tangent map
        keeps them, the token's value and key Jacobians go to ring slot ``slot`` of ``dv_ring`` and ``dk_ring``
        (``token_jacobian``)."""
        tanh_slopes(params, h)
        if keeps_jacobians(dv_ring):
            token_jacobian(coef, F_V, signs, params, h, dv_ring, slot)
            token_jacobian(coef, F_K, signs, params, h, dk_ring, slot)

    @jit
    def tangent_push(grad, tangent, head, new_rows, params, ctrl, controlled):
        """Advance the tangent vectors by the window gradient ``grad`` (L, M, M, lanes): every vector's new row
        grad·δA (``tangent_rows``, into the scratch ``new_rows``), then :func:`push_rows` (arguments as there)."""
        tangent_rows(grad, tangent, head, new_rows)      # every vector's row before any is written
        push_rows(tangent, head, L if L > 0 else grad.shape[0], new_rows, params, ctrl, controlled)

    return TangentStage(tanh_slopes, token_jacobian, keeps_jacobians, token_derivatives, attention_gradient,
                        tangent_push, push_rows)


def fixed_size_sums(jit, leaf_jit, L, M, J, slot_of):
    """``token_jacobian``, ``attention_gradient`` and ``tangent_rows`` for the sizes L, M, J compiled in: the sums
    in registers over the unrolled loops (:func:`.lane_sums.tangent_sums` is the run-time sizes' form)."""
    F_Q = layout.F_Q
    P_GAMMA, P_W = layout.P_GAMMA, layout.P_W

    @jit
    def token_jacobian(coef, f, signs, params, slopes, out, slot):
        """out[slot, a, b] = ∂m^f[a]/∂A[b] = w Σ_j c^f[j, a] β (1 - h_j²) σ_j[b] for the token whose tanh
        slopes β (1 - h_j²) are ``slopes`` (``tanh_slopes``; docs/model.md §4)."""
        for a in range(M):
            for b in range(M):
                for lane in range(slopes.shape[1]):
                    acc = 0.0
                    for j in range(J):
                        acc += coef[f, j, a] * slopes[j, lane] * signs[j, b]
                    out[slot, a, b, lane] = params[P_W, lane] * acc

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

    @leaf_jit
    def tangent_rows(grad, tangent, head, new_rows):
        """new_rows[j, a] = Σ_{d,b} grad[d, a, b] δA_j[d, b] for every tangent vector j (window row d at ring
        slot ``slot_of(head, d)``): the vectors' new newest rows."""
        for j in range(tangent.shape[0]):
            for a in range(M):
                for lane in range(new_rows.shape[2]):
                    acc = 0.0
                    for d in range(L):
                        base = slot_of(head, d, L) * M
                        for b in range(M):
                            acc += grad[d, a, b, lane] * tangent[j, base + b, lane]
                    new_rows[j, a, lane] = acc

    return token_jacobian, attention_gradient, tangent_rows


def lyapunov_stage(jit, L, M, log, tokens, tangents):
    """The tangent vectors of the Lyapunov exponents (docs/model.md §4.2): the QR of window-sized and of
    controlled (L·M + 2M) vectors, ``start_tangents`` and ``advance_tangents``, calling the functions of
    ``tokens`` (a :class:`TokenStage`) and ``tangents`` (a :class:`TangentStage`); returns a
    :class:`LyapunovStage`."""
    F_Q, C_RAW = layout.F_Q, layout.C_RAW
    SIZE, SIZE_CONTROLLED = L * M, L * M + 2 * M
    slot_of = tokens.slot_of
    token_jacobian, attention_gradient = tangents.token_jacobian, tangents.attention_gradient
    tangent_push, push_rows, keeps_jacobians = tangents.tangent_push, tangents.push_rows, tangents.keeps_jacobians

    if SIZE > 0:
        orthonormalize_window = orthonormalizer(jit, log, SIZE)
        orthonormalize_controlled = orthonormalizer(jit, log, SIZE_CONTROLLED)
    else:       # run-time sizes: one function, the sizes its argument (.lane_sums)
        orthonormalize_window = orthonormalize_controlled = lane_sums.orthonormalizer(jit, log)

    @jit
    def unit_tangents(tangent, head, att_ring):
        """Q = I at t = transient (docs/model.md §4.2): vector j is the unit vector of window entry j
        (logical row j // M, feature j % M, stored at ring slot ``slot_of(head, j // M)``), or of controller
        coordinate j >= L·M; every other entry 0."""
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
    def push_by_jacobians(shared, tile, scratch, head, raw):
        """Every vector's new row at the output ``raw`` through the query Jacobian and the attention gradient, then
        the push."""
        params = tile.params
        token_jacobian(shared.coef, F_Q, shared.signs, params, scratch.h, scratch.dq, 0)
        attention_gradient(params, scratch.fields, scratch.v_ring, scratch.k_ring, scratch.dv_ring, scratch.dk_ring,
                           scratch.dq, head, scratch.p, raw, scratch.grad, scratch.qr_work)   # free until the QR
        tangent_push(scratch.grad, scratch.tangent, head, scratch.new_rows, params, tile.ctrl, tile.controlled)

    if L > 0:       # fixed sizes: always the Jacobians
        @jit
        def start_tangents(shared, tile, scratch, head):
            """The vectors at t = transient: :func:`unit_tangents` (the rows' Jacobians are in the rings)."""
            unit_tangents(scratch.tangent, head, tile.att)

        push_tangents = push_by_jacobians
    else:           # run-time sizes: the Jacobians or the tangent images, as ``run_tiles`` allocated
        token_images, start_images, attention_images = tangent_images.image_stage(jit, tokens, tangents.tanh_slopes)

        @jit
        def start_tangents(shared, tile, scratch, head):
            """The vectors at t = transient: :func:`unit_tangents` and, where the tangent map runs through the
            tangent images, the images of the window rows but the newest (:mod:`.tangent_images`)."""
            unit_tangents(scratch.tangent, head, tile.att)
            if not keeps_jacobians(scratch.dv_ring):
                start_images(shared.coef, shared.signs, tile.params, tile.att, head, scratch.pe_terms,
                             scratch.tangent, (scratch.dh, scratch.dfields))

        @jit
        def push_tangents(shared, tile, scratch, head, raw):
            """:func:`push_by_jacobians`, or every vector's new row at the output ``raw`` through the newest row's
            tangent images (:mod:`.tangent_images`), then the push."""
            if keeps_jacobians(scratch.dv_ring):
                push_by_jacobians(shared, tile, scratch, head, raw)
            else:
                params, tangent = tile.params, scratch.tangent
                token_images(shared.coef, shared.signs, params, scratch.h, tangent, head,
                             (scratch.dh, scratch.dfields))
                attention_images(params, scratch.fields, scratch.v_ring, scratch.k_ring, head, scratch.p, raw,
                                 tangent, scratch.new_rows, scratch.qr_work)
                push_rows(tangent, head, scratch.v_ring.shape[0], scratch.new_rows, params, tile.ctrl,
                          tile.controlled)

    @jit
    def advance_tangents(shared, tile, scratch, block_sums, head, saved):
        """One tangent step (docs/model.md §4) from the tanh slopes that ``run_tile`` left in ``scratch.h``: every
        vector's new row at the uncontrolled output and the push (extended by the PID coordinates on a controlled
        tile, §5.2) by ``push_tangents`` (with fixed sizes through the token Jacobians and the attention gradient,
        with run-time sizes through the tangent images, :mod:`.tangent_images`), and, every ``qr_every`` steps and
        at block ends, the QR whose log|R_jj| go to ``block_sums[block]`` (§4.2)."""
        n_rows = L if L > 0 else scratch.v_ring.shape[0]
        n_feat = M if M > 0 else scratch.v_ring.shape[1]
        controlled, tangent = tile.controlled, scratch.tangent
        push_tangents(shared, tile, scratch, head, tile.ctrl[C_RAW] if controlled else scratch.att_new)
        n_blocks, n_saved = block_sums.shape[0], shared.steps - shared.transient
        block = saved * n_blocks // n_saved
        if (saved + 1) % shared.qr_every == 0 or (saved + 1) * n_blocks // n_saved != block:
            if controlled:
                orthonormalize_controlled(tangent, block_sums[block], scratch.qr_work, scratch.qr_dots,
                                          n_rows * n_feat + 2 * n_feat)
            else:
                orthonormalize_window(tangent, block_sums[block], scratch.qr_work, scratch.qr_dots, n_rows * n_feat)

    return LyapunovStage(orthonormalize_window, orthonormalize_controlled, start_tangents, advance_tangents)


def orthonormalizer(jit, log, size):
    """``orthonormalize(tangent, log_norms, work, dots, n_entries)`` for vectors of ``size`` entries (a
    compile-time constant; ``n_entries``, the same number, and ``dots``, the run-time form's scratch, are not
    read)."""

    def orthonormalize(tangent, log_norms, work, dots, n_entries):
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
