"""The mean-field step and its tangent step as allocation-free functions, shared by CPU and CUDA.

One file on purpose: this is the one definition of the map (docs/model.md §3), its tangent map (§4) and the
PID law (§5), compiled for the CPU (:mod:`.cpu`) and for CUDA (:mod:`.cuda`). Splitting it would put the
functions that call each other, and numba's on-disk cache, which is keyed on the content of the file a
function is defined in, into several files.

:func:`build_steps` takes a JIT decorator (``numba.njit`` for the CPU, ``numba.cuda.jit(device=True)`` for
CUDA) and returns the compiled functions. Every function takes arrays in and writes arrays out: no
allocation, no Python objects, only ``math`` functions.

Window layout (docs/model.md §3.3): the attention window, and the value/key rows of the tokens computed from
it, live in ring buffers of L slots; logical row d (d = 0 newest) is slot ``(head + d) % L``. A token's value
and key rows never change once computed (its PE code travels with it), so a step computes the mean fields of
one new token, D scores, one softmax and one weighted sum.

Per-point parameters ``params``, the controller state ``ctrl`` and the observable codes follow
:mod:`meanfield.model.layout`; their indices are bound as locals of :func:`build_steps`, so the compiled
functions hold them as closure constants, which numba's cache key includes (a change of the layout
recompiles; an imported module global would not). Coefficient tables ``coef`` are (4, J, M) in feature order
o, v, q, k.

PID control (docs/model.md §5.1; after PIDformer, Nguyen et al. 2024): with a_t the uncontrolled attention
output (§3 step 5) and ã the controlled one,

    e_t = r - ã_{t-1},   I_t = clamp(ρ I_{t-1} + e_t, ±I_max),   ã_t = a_t + K_P e_t + K_I I_t + K_D (e_t - e_{t-1}),

ã_t replacing a_t downstream (window, records, next token). ã_{-1} is the newest row of the start window,
I_0 = 0 and e_{-1} = e_0 for a fresh start; the per-point control state ``ctrl`` (CTRL_ROWS, M) = [r, I,
e_prev, scratch] comes in resolved (:func:`meanfield.model.layout.control_start`) and holds the final state
on return. With all gains 0 the control arithmetic is skipped, so the uncontrolled map is reproduced bitwise.
"""
import math

import numpy as np
from numba import prange

from ..model import layout


def build_steps(jit, parallel_jit=None):
    """Compile the step functions with ``jit``; returns them as a dict of name -> function.

    With ``parallel_jit`` (a CPU decorator with ``parallel=True``) the dict also holds the CPU-only
    ``run_batch``, the ``prange`` loop over points, ``attention_jacobian`` and ``window_gradient``.
    """
    OBS_ATT, OBS_MO, OBS_MO_SE, OBS_MV, OBS_MQ = (layout.OBS_ATT, layout.OBS_MO, layout.OBS_MO_SE, layout.OBS_MV,
                                                  layout.OBS_MQ)
    F_O, F_V, F_Q, F_K = layout.F_O, layout.F_V, layout.F_Q, layout.F_K
    P_BETA, P_GAMMA, P_W, P_EPS_PE = layout.P_BETA, layout.P_GAMMA, layout.P_W, layout.P_EPS_PE
    P_KP, P_KI, P_KD, P_RHO, P_IMAX, P_BOUND = (layout.P_KP, layout.P_KI, layout.P_KD, layout.P_RHO, layout.P_IMAX,
                                                layout.P_BOUND)
    C_REF, C_INT, C_ERR, C_GATE, C_RAW = layout.C_REF, layout.C_INT, layout.C_ERR, layout.C_GATE, layout.C_RAW
    CTRL_ROWS, CTRL_STATE_ROWS = layout.CTRL_ROWS, layout.CTRL_STATE_ROWS

    @jit
    def slot_of(head, d, ring):
        """Ring slot of logical window row d (a compare instead of an integer modulo on the hot path)."""
        slot = head + d
        return slot - ring if slot >= ring else slot

    @jit
    def positional_terms(w_pe, eps_pe, pe0, out):
        """out[f, r, a] = ε Σ_i W^f_PE[a, i] Π0[r, i] / P for every PE row r of the start window (docs/model.md §3 step 2)."""
        n_pe = pe0.shape[1]
        for f in range(out.shape[0]):
            for r in range(out.shape[1]):
                for a in range(out.shape[2]):
                    acc = 0.0
                    for i in range(n_pe):
                        acc += w_pe[f, a, i] * pe0[r, i]
                    out[f, r, a] = eps_pe * acc / n_pe if n_pe > 0 else 0.0

    @jit
    def token_fields(coef, signs, beta, w, att_ring, slot, pe_terms, h, fields, semantic_o):
        """Mean fields m^o, m^v, m^q, m^k of the token generated from window row ``att_ring[slot]``, whose
        PE code is row ``slot`` of the start PE window (docs/model.md §3 steps 1-2).

        h[j] = tanh(β σ_j·A), m^f[a] = w Σ_j c^f[j, a] h[j] + (PE term); ``semantic_o`` receives
        m^{o,se} = w Σ_j c^o[j, a] h[j] (the reference's ``mo_se``, factor w included, docs/model.md §8).
        """
        n_feat = att_ring.shape[1]
        n_patterns = signs.shape[0]
        for j in range(n_patterns):
            overlap = 0.0
            for b in range(n_feat):
                overlap += signs[j, b] * att_ring[slot, b]
            h[j] = math.tanh(beta * overlap)
        for a in range(n_feat):
            acc_o = 0.0
            acc_v = 0.0
            acc_q = 0.0
            acc_k = 0.0
            for j in range(n_patterns):
                acc_o += coef[F_O, j, a] * h[j]
                acc_v += coef[F_V, j, a] * h[j]
                acc_q += coef[F_Q, j, a] * h[j]
                acc_k += coef[F_K, j, a] * h[j]
            semantic_o[a] = w * acc_o
            fields[F_O, a] = w * acc_o + pe_terms[F_O, slot, a]
            fields[F_V, a] = w * acc_v + pe_terms[F_V, slot, a]
            fields[F_Q, a] = w * acc_q + pe_terms[F_Q, slot, a]
            fields[F_K, a] = w * acc_k + pe_terms[F_K, slot, a]

    @jit
    def attend(gamma, fields, v_ring, k_ring, head, depth, p, att_new):
        """Scores s[d] = γ m^q·m^k[d] (m^q = fields[F_Q]), softmax with the reference's max-shift +10, a = Σ_d p[d] m^v[d]
        (docs/model.md §3 steps 3-5). ``p`` receives the attention weights (needed by the tangent step)."""
        ring, n_feat = v_ring.shape
        top = -math.inf
        for d in range(depth):
            slot = slot_of(head, d, ring)
            acc = 0.0
            for b in range(n_feat):
                acc += fields[F_Q, b] * k_ring[slot, b]
            p[d] = gamma * acc
            top = max(top, p[d])
        total = 0.0
        for d in range(depth):
            p[d] = math.exp(p[d] - top + 10.0)
            total += p[d]
        for d in range(depth):
            p[d] = p[d] / total
        for a in range(n_feat):
            acc = 0.0
            for d in range(depth):
                acc += p[d] * v_ring[slot_of(head, d, ring), a]
            att_new[a] = acc

    @jit
    def token_jacobian(coef, f, signs, beta, w, h, out, slot):
        """out[slot, a, b] = ∂m^f[a]/∂A[b] = w Σ_j c^f[j, a] β (1 - h_j²) σ_j[b] for the token whose
        tanh values are ``h`` (docs/model.md §4)."""
        n_feat = out.shape[1]
        for a in range(n_feat):
            for b in range(n_feat):
                acc = 0.0
                for j in range(signs.shape[0]):
                    acc += coef[f, j, a] * (beta * (1.0 - h[j] * h[j])) * signs[j, b]
                out[slot, a, b] = w * acc

    @jit
    def attention_gradient(gamma, fields, v_ring, k_ring, dv_ring, dk_ring, dq, head, depth, p, att_new, grad):
        """grad[d, a, b] = ∂a_new[a]/∂A[d, b] (docs/model.md §4, chain rule).

        Row d enters through its value and key, ∂a/∂m^v[d] = p[d] and ∂a/∂s[d] = p[d](m^v[d] - a) with
        ∂s[d]/∂m^k[d] = γ m^q; the newest row also enters through the query, ∂s[e]/∂m^q = γ m^k[e].
        """
        ring, n_feat = v_ring.shape
        for d in range(depth):
            slot = slot_of(head, d, ring)
            for b in range(n_feat):
                q_dk = 0.0
                for c in range(n_feat):
                    q_dk += fields[F_Q, c] * dk_ring[slot, c, b]
                for a in range(n_feat):
                    grad[d, a, b] = p[d] * (dv_ring[slot, a, b] + (v_ring[slot, a] - att_new[a]) * gamma * q_dk)
        for a in range(n_feat):
            for b in range(n_feat):
                acc = 0.0
                for e in range(depth):
                    slot = slot_of(head, e, ring)
                    k_dq = 0.0
                    for c in range(n_feat):
                        k_dq += k_ring[slot, c] * dq[0, c, b]
                    acc += p[e] * (v_ring[slot, a] - att_new[a]) * k_dq
                grad[0, a, b] += gamma * acc

    @jit
    def tangent_push(grad, tangent, head, depth, new_row, params, ctrl, controlled):
        """Advance the tangent vectors ``tangent[j]`` (k, L·M; window slot s holds entries s·M..s·M+M-1):
        the newest row becomes grad·δA, the others shift (docs/model.md §4: J is a shift register except for its
        first block row). The new row goes to slot (head - 1) mod L, the ring's next head; ``new_row`` (M,)
        is scratch.

        ``controlled``: the extended tangent map of the PID loop (docs/model.md §5.2). Vectors are then
        (k, L·M + 2M): the window, then δI, then δe_prev. With δA0 the old newest row and g the clamp gate
        ``ctrl[C_GATE]``: δe' = -δA0, δI' = g (ρ δI - δA0), δã = grad·δA - (K_P + K_D) δA0 + K_I δI' - K_D δe_prev.
        With K_I = 0 the integral never acts on the dynamics; its direction is dropped (δI' = 0, exponent
        -inf) instead of contributing the spurious log ρ. The δe_prev directions always have exponent -inf
        (e_t = r - ã_{t-1} is a function of the window): the extended spectrum is the controlled window's
        plus M (or 2M) times -inf.
        """
        n_feat = grad.shape[1]
        ring = (tangent.shape[1] - (2 * n_feat if controlled else 0)) // n_feat
        new_head = head - 1 if head > 0 else ring - 1
        base_i = ring * n_feat
        base_e = base_i + n_feat
        for j in range(tangent.shape[0]):
            for a in range(n_feat):
                acc = 0.0
                for d in range(depth):
                    base = slot_of(head, d, ring) * n_feat
                    for b in range(n_feat):
                        acc += grad[d, a, b] * tangent[j, base + b]
                new_row[a] = acc
            if controlled:
                for a in range(n_feat):
                    old = tangent[j, head * n_feat + a]
                    d_int = 0.0
                    if params[P_KI] != 0.0:      # I feeds back only through K_I: else not a coordinate (λ = -inf)
                        d_int = ctrl[C_GATE, a] * (params[P_RHO] * tangent[j, base_i + a] - old)
                    new_row[a] += (-(params[P_KP] + params[P_KD]) * old + params[P_KI] * d_int
                                   - params[P_KD] * tangent[j, base_e + a])
                    tangent[j, base_i + a] = d_int
                    tangent[j, base_e + a] = -old
            for a in range(n_feat):
                tangent[j, new_head * n_feat + a] = new_row[a]

    @jit
    def control_step(params, att_ring, head, att_new, ctrl):
        """Apply the PID law (docs/model.md §5.1) to the uncontrolled output ``att_new`` (a_t) in place, giving ã_t.

        ã_{t-1} is the newest window row ``att_ring[head]``; ``ctrl`` rows C_REF, C_INT, C_ERR hold r,
        I_{t-1}, e_{t-1} and receive I_t, e_t; C_GATE receives dI_t/d(ρI + e) (0 where the clamp is active)
        and C_RAW the uncontrolled a_t (the tangent step needs both). Returns max_a |I_t,a|, or -1 when
        |ã_t| or |I_t| passes the divergence bound ``params[P_BOUND]`` (or is NaN): the loop has diverged.
        """
        kp, ki, kd, rho, i_max, bound = (params[P_KP], params[P_KI], params[P_KD], params[P_RHO],
                                         params[P_IMAX], params[P_BOUND])
        largest = 0.0
        diverged = False
        for a in range(att_new.shape[0]):
            err = ctrl[C_REF, a] - att_ring[head, a]
            integral = rho * ctrl[C_INT, a] + err
            gate = 1.0
            if integral > i_max:
                integral, gate = i_max, 0.0
            elif integral < -i_max:
                integral, gate = -i_max, 0.0
            ctrl[C_RAW, a] = att_new[a]
            att_new[a] = att_new[a] + kp * err + ki * integral + kd * (err - ctrl[C_ERR, a])
            ctrl[C_INT, a] = integral
            ctrl[C_ERR, a] = err
            ctrl[C_GATE, a] = gate
            # a P or PD loop never reads I (it may drift without bound harmlessly); only |ã| then counts
            if not (abs(att_new[a]) <= bound and (ki == 0.0 or abs(integral) <= bound)):
                diverged = True
            largest = max(largest, abs(integral))
        return -1.0 if diverged else largest

    @jit
    def orthonormalize(tangent, log_norms):
        """Modified Gram-Schmidt on the k tangent vectors ``tangent[j]`` (k, L·M); adds log|R_jj| to
        log_norms[j] (docs/model.md §4.2's QR, up to signs). One pass suffices because vectors are re-orthonormalised
        after every step (bench/qr_interval.py: a product of even 2 Jacobians loses the most contracting
        directions when the spectrum spans ~10 per step, so QR runs every step by default).

        The ring order of entries is irrelevant: inner products run over all L·M entries. A vector that
        collapses to 0 (a singular map, e.g. β_o = 0) contributes -inf, like the reference's log 0.
        """
        n_vec, size = tangent.shape
        for j in range(n_vec):
            for i in range(j):
                dot = 0.0
                for s in range(size):
                    dot += tangent[i, s] * tangent[j, s]
                for s in range(size):
                    tangent[j, s] -= dot * tangent[i, s]
            norm = 0.0
            for s in range(size):
                norm += tangent[j, s] * tangent[j, s]
            norm = math.sqrt(norm)
            if norm > 0.0:
                log_norms[j] += math.log(norm)
                scale = 1.0 / norm
                for s in range(size):
                    tangent[j, s] *= scale
            else:
                log_norms[j] = -math.inf

    @jit
    def run_point(coef, signs, w_pe, params, pe0, att_ring, depth, steps, transient, record_every, selection,
                  qr_every, pe_terms, h, fields, semantic_o, v_ring, k_ring, p, att_new,
                  dv_ring, dk_ring, dq, grad, tangent, new_row, records, block_sums, ctrl, ctrl_stats):
        """Iterate one parameter point for ``steps`` steps (docs/model.md §3), recording after ``transient``.

        ``att_ring`` holds the start window in logical order (row d = slot d, ``depth`` valid rows) and
        receives the final window in logical order. Records go to ``records[(t - transient) // record_every,
        n, :]`` for the observables ``selection[n]``. With k = ``tangent.shape[0]`` > 0 the k leading
        Lyapunov exponents (``tangent`` is (k, L·M)) are accumulated from t = transient (Q = I there, docs/model.md §4.2): log|R_jj| of a QR
        every ``qr_every`` steps and at block ends go to ``block_sums[block, j]``. Returns the final depth.

        PID control (module docstring; docs/model.md §5.1) runs when a gain is non-zero: ``ctrl`` (CTRL_ROWS, M) holds
        [r, I, e_prev] in and out, ``tangent`` is then (k, L·M + 2M) (window, δI, δe_prev) and
        ``ctrl_stats`` receives [max_t |I_t|, the step at which the loop diverged or -1]. A diverged point
        stops there: the window keeps its last state within the bound, the remaining records and the block
        sums become NaN (so classification says ``divergent``).
        """
        beta, gamma, w, eps_pe = params[P_BETA], params[P_GAMMA], params[P_W], params[P_EPS_PE]
        controlled = params[P_KP] != 0.0 or params[P_KI] != 0.0 or params[P_KD] != 0.0
        raw = ctrl[C_RAW] if controlled else att_new
        ctrl_stats[0] = 0.0
        ctrl_stats[1] = -1.0
        ring, n_feat = att_ring.shape
        n_vec = tangent.shape[0]
        n_saved = steps - transient
        n_blocks = block_sums.shape[0]
        positional_terms(w_pe, eps_pe, pe0, pe_terms)
        # value/key rows (and their Jacobians) of the tokens already in the start window; row 0 is redone at t = 0
        for d in range(1, depth):
            token_fields(coef, signs, beta, w, att_ring, d, pe_terms, h, fields, semantic_o)
            for a in range(n_feat):
                v_ring[d, a] = fields[F_V, a]
                k_ring[d, a] = fields[F_K, a]
            if n_vec > 0:
                token_jacobian(coef, F_V, signs, beta, w, h, dv_ring, d)
                token_jacobian(coef, F_K, signs, beta, w, h, dk_ring, d)
        head = 0
        for t in range(steps):
            # slot indices double as PE rows: the token of step t carries Π0[(-t) mod L] = Π0[head]
            token_fields(coef, signs, beta, w, att_ring, head, pe_terms, h, fields, semantic_o)
            for a in range(n_feat):
                v_ring[head, a] = fields[F_V, a]
                k_ring[head, a] = fields[F_K, a]
            attend(gamma, fields, v_ring, k_ring, head, depth, p, att_new)
            saved = t - transient
            if controlled:
                largest = control_step(params, att_ring, head, att_new, ctrl)
                if largest < 0.0:
                    ctrl_stats[1] = t
                    for row in range((max(saved, 0) + record_every - 1) // record_every, records.shape[0]):
                        for n in range(records.shape[1]):
                            for a in range(n_feat):
                                records[row, n, a] = math.nan
                    for block in range(n_blocks):
                        for j in range(n_vec):
                            block_sums[block, j] = math.nan
                    break
                ctrl_stats[0] = max(ctrl_stats[0], largest)
            if saved >= 0 and saved % record_every == 0:
                row = saved // record_every
                for n in range(selection.shape[0]):
                    obs = selection[n]
                    for a in range(n_feat):
                        if obs == OBS_ATT:
                            value = att_new[a]
                        elif obs == OBS_MO:
                            value = fields[F_O, a]
                        elif obs == OBS_MO_SE:
                            value = semantic_o[a]
                        elif obs == OBS_MV:
                            value = fields[F_V, a]
                        elif obs == OBS_MQ:
                            value = fields[F_Q, a]
                        else:
                            value = fields[F_K, a]
                        records[row, n, a] = value
            if n_vec > 0 and saved >= 0:
                if saved == 0:
                    for j in range(n_vec):
                        for d in range(ring):
                            for a in range(n_feat):
                                tangent[j, slot_of(head, d, ring) * n_feat + a] = 1.0 if d * n_feat + a == j else 0.0
                        for s in range(ring * n_feat, tangent.shape[1]):
                            tangent[j, s] = 1.0 if s == j else 0.0
                token_jacobian(coef, F_V, signs, beta, w, h, dv_ring, head)
                token_jacobian(coef, F_K, signs, beta, w, h, dk_ring, head)
                token_jacobian(coef, F_Q, signs, beta, w, h, dq, 0)
                attention_gradient(gamma, fields, v_ring, k_ring, dv_ring, dk_ring, dq, head, depth, p,
                                   raw, grad)
                tangent_push(grad, tangent, head, depth, new_row, params, ctrl, controlled)
                block = saved * n_blocks // n_saved
                if (saved + 1) % qr_every == 0 or (saved + 1) * n_blocks // n_saved != block:
                    orthonormalize(tangent, block_sums[block])
            elif n_vec > 0 and saved >= -ring:
                # the rows in the window when tangent dynamics start need their token Jacobians
                token_jacobian(coef, F_V, signs, beta, w, h, dv_ring, head)
                token_jacobian(coef, F_K, signs, beta, w, h, dk_ring, head)
            head = head - 1 if head > 0 else ring - 1
            for a in range(n_feat):
                att_ring[head, a] = att_new[a]
            if depth < ring:
                depth += 1
        # unroll the ring into logical order (slot d = row d), reusing v_ring as scratch
        for d in range(ring):
            for a in range(n_feat):
                v_ring[d, a] = att_ring[slot_of(head, d, ring), a]
        for d in range(ring):
            for a in range(n_feat):
                att_ring[d, a] = v_ring[d, a]
        return depth

    steps = dict(positional_terms=positional_terms, token_fields=token_fields, attend=attend,
                 token_jacobian=token_jacobian, attention_gradient=attention_gradient,
                 tangent_push=tangent_push, control_step=control_step, orthonormalize=orthonormalize,
                 run_point=run_point)
    if parallel_jit is None:
        return steps

    @parallel_jit
    def run_batch(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, steps, transient, record_every, selection,
                  n_exponents, qr_every, n_blocks):
        """Iterate every point of a batch; see :func:`meanfield.kernels.step.build_steps` ``run_point``.

        Parameters
        ----------
        coef, signs, w_pe : tables shared by the batch (:func:`meanfield.model.layout.map_tables`)
        params : (n, K) per-point parameters (PARAMETER_LAYOUT); pe0 : (n, L, P) start PE windows; att0 :
            (n, L, M) start windows (first ``depth0[i]`` rows valid); ctrl0 : (n, 3, M) control start
            [r, I_0, e_{-1}] (:func:`meanfield.model.layout.control_start`); selection : int64 observable codes.

        Returns
        -------
        records (n, n_rec, len(selection), M), final windows (n, L, M), final depths (n,),
        block sums of log|R_jj| (n, n_blocks, n_exponents), final control state (n, 3, M) [r, I, e_prev],
        control statistics (n, 2) [max |I_t|, divergence step or -1].
        """
        n_points, ring, n_feat = att0.shape
        n_saved = steps - transient
        n_rec = (n_saved + record_every - 1) // record_every
        n_sel = selection.shape[0]
        records = np.empty((n_points, n_rec, n_sel, n_feat))
        final = att0.copy()
        depth = np.empty(n_points, dtype=np.int64)
        block_sums = np.zeros((n_points, n_blocks, n_exponents))
        ctrl = np.zeros((n_points, CTRL_ROWS, n_feat))
        ctrl[:, :CTRL_STATE_ROWS] = ctrl0
        stats = np.empty((n_points, 2))
        n_patterns = signs.shape[0]
        for i in prange(n_points):
            controlled = params[i, P_KP] != 0.0 or params[i, P_KI] != 0.0 or params[i, P_KD] != 0.0
            size = ring * n_feat + (2 * n_feat if controlled else 0)
            depth[i] = run_point(
                coef, signs, w_pe, params[i], pe0[i], final[i], depth0[i], steps, transient, record_every, selection,
                qr_every, np.empty((4, ring, n_feat)), np.empty(n_patterns), np.empty((4, n_feat)),
                np.empty(n_feat), np.empty((ring, n_feat)), np.empty((ring, n_feat)), np.empty(ring),
                np.empty(n_feat), np.empty((ring, n_feat, n_feat)), np.empty((ring, n_feat, n_feat)),
                np.empty((1, n_feat, n_feat)), np.empty((ring, n_feat, n_feat)),
                np.empty((n_exponents, size)), np.empty(n_feat), records[i], block_sums[i], ctrl[i], stats[i])
        return records, final, depth, block_sums, ctrl[:, :CTRL_STATE_ROWS].copy(), stats

    @jit
    def window_gradient(coef, signs, w_pe, params, pe0, att0, ctrl, controlled):
        """grad[d] = ∂a_t/∂A[d] at a full window ``att0`` (docs/model.md §4), as run_point computes it; with
        ``controlled`` the PID step runs first on ``ctrl`` (CTRL_ROWS, M), which receives the clamp gate."""
        ring, n_feat = att0.shape
        beta, gamma, w, eps_pe = params[P_BETA], params[P_GAMMA], params[P_W], params[P_EPS_PE]
        pe_terms = np.empty((4, ring, n_feat))
        positional_terms(w_pe, eps_pe, pe0, pe_terms)
        h = np.empty(signs.shape[0])
        fields = np.empty((4, n_feat))
        semantic_o = np.empty(n_feat)
        v_ring = np.empty((ring, n_feat))
        k_ring = np.empty((ring, n_feat))
        dv_ring = np.empty((ring, n_feat, n_feat))
        dk_ring = np.empty((ring, n_feat, n_feat))
        dq = np.empty((1, n_feat, n_feat))
        for d in range(ring - 1, -1, -1):
            token_fields(coef, signs, beta, w, att0, d, pe_terms, h, fields, semantic_o)
            v_ring[d] = fields[F_V]
            k_ring[d] = fields[F_K]
            token_jacobian(coef, F_V, signs, beta, w, h, dv_ring, d)
            token_jacobian(coef, F_K, signs, beta, w, h, dk_ring, d)
        token_jacobian(coef, F_Q, signs, beta, w, h, dq, 0)
        p = np.empty(ring)
        att_new = np.empty(n_feat)
        attend(gamma, fields, v_ring, k_ring, 0, ring, p, att_new)
        if controlled:
            control_step(params, att0, 0, att_new, ctrl)
            att_new[:] = ctrl[C_RAW]
        grad = np.empty((ring, n_feat, n_feat))
        attention_gradient(gamma, fields, v_ring, k_ring, dv_ring, dk_ring, dq, 0, ring, p, att_new, grad)
        return grad

    @jit
    def attention_jacobian(coef, signs, w_pe, params, pe0, att0):
        """∂A'/∂A (L·M × L·M, row-major flattening) at a full window ``att0`` (docs/model.md §4): the first block
        row is the attention gradient, the rest the shift. The same code as the tangent step of run_point."""
        ring, n_feat = att0.shape
        grad = window_gradient(coef, signs, w_pe, params, pe0, att0, np.zeros((CTRL_ROWS, n_feat)), False)
        jac = np.zeros((ring * n_feat, ring * n_feat))
        for d in range(ring):
            for a in range(n_feat):
                for b in range(n_feat):
                    jac[a, d * n_feat + b] = grad[d, a, b]
        for i in range(n_feat, ring * n_feat):
            jac[i, i - n_feat] = 1.0
        return jac

    steps["run_batch"] = run_batch
    steps["attention_jacobian"] = attention_jacobian
    steps["window_gradient"] = window_gradient
    return steps
