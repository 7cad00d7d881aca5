"""Run-time sizes (docs/model.md §3.3, "Sizes"): the step functions of :mod:`.map_stages` and
:mod:`.tangent_stages` that sum over features, sign classes or window rows, written for L, M, J read from the
arrays' shapes. Each sum accumulates in an array, one lane per element, with the loop over lanes innermost, so that
LLVM vectorises it without constant sizes (the fixed-size functions there keep their sums in registers over
unrolled loops instead). Each lane adds the same terms in the same order as there: the same bits. Arguments and
results as the functions of the same names there; :func:`.step.build_steps` uses these when it is given sizes of 0.
"""
import math

from ..model import layout


def signed_sums_of(jit):
    """``signed_sums``, compiled with ``jit`` (:func:`token_sums` returns it)."""

    @jit
    def signed_sums(signs, x, base, out):
        """out[j] = Σ_b σ_j[b] x[base + b] (the overlaps of the sign classes with one window row, or with a
        tangent vector's row at entry ``base``), four features per pass over the lanes so that the running sums
        stay in registers across them."""
        n_pat, n_feat, n_lanes = signs.shape[0], signs.shape[1], out.shape[1]
        for j in range(n_pat):
            for lane in range(n_lanes):
                out[j, lane] = 0.0
            b = 0
            while b + 4 <= n_feat:
                s0, s1, s2, s3 = signs[j, b], signs[j, b + 1], signs[j, b + 2], signs[j, b + 3]
                for lane in range(n_lanes):
                    out[j, lane] = (((out[j, lane] + s0 * x[base + b, lane]) + s1 * x[base + b + 1, lane])
                                    + s2 * x[base + b + 2, lane]) + s3 * x[base + b + 3, lane]
                b += 4
            for b in range(b, n_feat):
                sign = signs[j, b]
                for lane in range(n_lanes):
                    out[j, lane] += sign * x[base + b, lane]

    return signed_sums


def token_sums(jit, tanh, slot_of, softmax_weights):
    """``token_fields``, ``attend`` (docs/model.md §3, steps 1-5), ``value_query_key`` (the sums over sign
    classes of one feature's value, query and key fields) and ``signed_sums`` (the overlaps σ_j · x), which the
    tangent images of :mod:`.tangent_images` apply to the tangent vectors too, calling ``slot_of`` (the ring index) and
    ``softmax_weights`` of :func:`.map_stages.token_stage`."""
    F_O, F_V, F_Q, F_K = layout.F_O, layout.F_V, layout.F_Q, layout.F_K
    P_BETA, P_GAMMA, P_W, P_W_MO_SE = layout.P_BETA, layout.P_GAMMA, layout.P_W, layout.P_W_MO_SE
    signed_sums = signed_sums_of(jit)

    @jit
    def token_fields(coef, signs, params, att_ring, slot, pe_terms, h, fields, semantic_o, with_o):
        """``token_fields`` with the sizes read from the arrays: the same sums, lane by lane, four terms per pass
        over the lanes so that the running sums stay in registers across them (the terms are added in the same
        order: the same bits). m^o and ``semantic_o`` are computed only ``with_o`` (only records read them)."""
        n_feat = att_ring.shape[1]
        n_pat = signs.shape[0]
        n_lanes = h.shape[1]
        signed_sums(signs, att_ring[slot], 0, h)
        for j in range(n_pat):
            for lane in range(n_lanes):
                h[j, lane] = tanh(params[P_BETA, lane] * h[j, lane])
        for a in range(n_feat):
            value_query_key(coef, h, a, fields)
            for lane in range(n_lanes):
                w = params[P_W, lane]
                fields[F_V, a, lane] = w * fields[F_V, a, lane] + pe_terms[F_V, slot, a, lane]
                fields[F_Q, a, lane] = w * fields[F_Q, a, lane] + pe_terms[F_Q, slot, a, lane]
                fields[F_K, a, lane] = w * fields[F_K, a, lane] + pe_terms[F_K, slot, a, lane]
            if with_o:
                output_field(coef, h, a, fields[F_O, a])
                for lane in range(n_lanes):
                    semantic_o[a, lane] = params[P_W_MO_SE, lane] * fields[F_O, a, lane]
                    fields[F_O, a, lane] = params[P_W, lane] * fields[F_O, a, lane] + pe_terms[F_O, slot, a, lane]

    @jit
    def value_query_key(coef, h, a, fields):
        """fields[f, a] = Σ_j c^f[j, a] h[j] for f = v, q, k: the three sums in one pass over the sign classes,
        four classes per pass over the lanes."""
        n_pat, n_lanes = h.shape[0], h.shape[1]
        for f in (F_V, F_Q, F_K):
            for lane in range(n_lanes):
                fields[f, a, lane] = 0.0
        j = 0
        while j + 4 <= n_pat:
            c = coef[:, j:j + 4, a]
            for lane in range(n_lanes):
                h0, h1, h2, h3 = h[j, lane], h[j + 1, lane], h[j + 2, lane], h[j + 3, lane]
                for f in (F_V, F_Q, F_K):
                    fields[f, a, lane] = (((fields[f, a, lane] + c[f, 0] * h0) + c[f, 1] * h1) + c[f, 2] * h2
                                          ) + c[f, 3] * h3
            j += 4
        for j in range(j, n_pat):
            for f in (F_V, F_Q, F_K):
                for lane in range(n_lanes):
                    fields[f, a, lane] += coef[f, j, a] * h[j, lane]

    @jit
    def output_field(coef, h, a, out):
        """out = Σ_j c^o[j, a] h[j] (one feature's m^o before the factor w and the PE term), four classes per
        pass over the lanes."""
        n_pat, n_lanes = h.shape[0], h.shape[1]
        for lane in range(n_lanes):
            out[lane] = 0.0
        j = 0
        while j + 4 <= n_pat:
            c = coef[F_O, j:j + 4, a]
            for lane in range(n_lanes):
                out[lane] = (((out[lane] + c[0] * h[j, lane]) + c[1] * h[j + 1, lane]) + c[2] * h[j + 2, lane]
                             ) + c[3] * h[j + 3, lane]
            j += 4
        for j in range(j, n_pat):
            for lane in range(n_lanes):
                out[lane] += coef[F_O, j, a] * h[j, lane]

    @jit
    def attend(params, fields, v_ring, k_ring, head, depth, p, softmax, att_new):
        """``attend`` with the sizes read from the arrays: the same sums, lane by lane."""
        n_rows = v_ring.shape[0]
        n_feat = v_ring.shape[1]
        n_lanes = p.shape[1]
        top, total = softmax[0], softmax[1]
        for lane in range(n_lanes):
            top[lane] = -math.inf
            total[lane] = 0.0
        for d in range(n_rows):
            slot = slot_of(head, d, n_rows)
            for lane in range(n_lanes):
                p[d, lane] = 0.0
            for b in range(n_feat):
                for lane in range(n_lanes):
                    p[d, lane] += fields[F_Q, b, lane] * k_ring[slot, b, lane]
            for lane in range(n_lanes):
                score = params[P_GAMMA, lane] * p[d, lane] if d < depth[lane] else -math.inf
                p[d, lane] = score
                top[lane] = max(top[lane], score)
        softmax_weights(p, top, total, n_rows)
        for a in range(n_feat):
            for lane in range(n_lanes):
                att_new[a, lane] = 0.0
            for d in range(n_rows):
                slot = slot_of(head, d, n_rows)
                for lane in range(n_lanes):
                    att_new[a, lane] += p[d, lane] * v_ring[slot, a, lane]

    return token_fields, attend, value_query_key, signed_sums


def tangent_sums(jit, leaf_jit, slot_of):
    """``token_jacobian``, ``attention_gradient`` (docs/model.md §4) and ``tangent_rows`` (compiled with
    ``leaf_jit``: inlined into ``tangent_push`` on the CPU)."""
    F_Q = layout.F_Q
    P_GAMMA, P_W = layout.P_GAMMA, layout.P_W

    @jit
    def token_jacobian(coef, f, signs, params, slopes, out, slot):
        """``token_jacobian`` with the sizes read from the arrays: the same sums, lane by lane, four classes per
        pass over the lanes. Each term is (c σ) g where the fixed-size form has (c g) σ: with σ = ±1 both are
        ±(c g) rounded once, the same bits."""
        n_feat = out.shape[1]
        n_pat = signs.shape[0]
        n_lanes = slopes.shape[1]
        for a in range(n_feat):
            for b in range(n_feat):
                row = out[slot, a, b]
                for lane in range(n_lanes):
                    row[lane] = 0.0
                j = 0
                while j + 4 <= n_pat:
                    c0, c1 = coef[f, j, a] * signs[j, b], coef[f, j + 1, a] * signs[j + 1, b]
                    c2, c3 = coef[f, j + 2, a] * signs[j + 2, b], coef[f, j + 3, a] * signs[j + 3, b]
                    for lane in range(n_lanes):
                        row[lane] = (((row[lane] + c0 * slopes[j, lane]) + c1 * slopes[j + 1, lane])
                                     + c2 * slopes[j + 2, lane]) + c3 * slopes[j + 3, lane]
                    j += 4
                for j in range(j, n_pat):
                    c = coef[f, j, a] * signs[j, b]
                    for lane in range(n_lanes):
                        row[lane] += c * slopes[j, lane]
                for lane in range(n_lanes):
                    row[lane] = params[P_W, lane] * row[lane]

    @jit
    def attention_gradient(params, fields, v_ring, k_ring, dv_ring, dk_ring, dq, head, p, att_new, grad, work):
        """``attention_gradient`` with the sizes read from the arrays: the same sums, lane by lane, the query's
        term for all output features at once (in rows 2 .. M + 1 of ``work``: k·dq is formed once per row and
        input feature instead of once per output feature)."""
        n_rows = v_ring.shape[0]
        n_feat = v_ring.shape[1]
        n_lanes = p.shape[1]
        for d in range(n_rows):
            slot = slot_of(head, d, n_rows)
            for b in range(n_feat):
                q_dk = work[0]
                for lane in range(n_lanes):
                    q_dk[lane] = 0.0
                for c in range(n_feat):
                    for lane in range(n_lanes):
                        q_dk[lane] += fields[F_Q, c, lane] * dk_ring[slot, c, b, lane]
                for a in range(n_feat):
                    for lane in range(n_lanes):
                        centred = v_ring[slot, a, lane] - att_new[a, lane]
                        grad[d, a, b, lane] = p[d, lane] * (dv_ring[slot, a, b, lane]
                                                            + centred * params[P_GAMMA, lane] * q_dk[lane])
        k_dq, rows = work[1], work[2:2 + n_feat]
        for b in range(n_feat):
            for a in range(n_feat):
                for lane in range(n_lanes):
                    rows[a, lane] = 0.0
            for e in range(n_rows):
                slot = slot_of(head, e, n_rows)
                for lane in range(n_lanes):
                    k_dq[lane] = 0.0
                for c in range(n_feat):
                    for lane in range(n_lanes):
                        k_dq[lane] += k_ring[slot, c, lane] * dq[0, c, b, lane]
                for a in range(n_feat):
                    for lane in range(n_lanes):
                        rows[a, lane] += p[e, lane] * (v_ring[slot, a, lane] - att_new[a, lane]) * k_dq[lane]
            for a in range(n_feat):
                for lane in range(n_lanes):
                    grad[0, a, b, lane] += params[P_GAMMA, lane] * rows[a, lane]

    @leaf_jit
    def tangent_rows(grad, tangent, head, new_rows):
        """``tangent_rows`` with the sizes read from the arrays: one pass over ``grad`` for all the vectors (it is
        L·M²·W doubles, far beyond the caches at many features), four terms per pass over the lanes; each row
        adds the same terms in the same order (d, then b)."""
        n_rows, n_feat, n_lanes = grad.shape[0], grad.shape[1], new_rows.shape[2]
        for j in range(tangent.shape[0]):
            for a in range(n_feat):
                for lane in range(n_lanes):
                    new_rows[j, a, lane] = 0.0
        for d in range(n_rows):
            base = slot_of(head, d, n_rows) * n_feat
            for a in range(n_feat):
                g = grad[d, a]
                for j in range(tangent.shape[0]):
                    row, vector = new_rows[j, a], tangent[j]
                    b = 0
                    while b + 4 <= n_feat:
                        for lane in range(n_lanes):
                            t0, t1 = g[b, lane] * vector[base + b, lane], g[b + 1, lane] * vector[base + b + 1, lane]
                            t2 = g[b + 2, lane] * vector[base + b + 2, lane]
                            t3 = g[b + 3, lane] * vector[base + b + 3, lane]
                            row[lane] = (((row[lane] + t0) + t1) + t2) + t3
                        b += 4
                    for b in range(b, n_feat):
                        for lane in range(n_lanes):
                            row[lane] += g[b, lane] * vector[base + b, lane]

    return token_jacobian, attention_gradient, tangent_rows


def orthonormalizer(jit, log):
    """``orthonormalize(tangent, log_norms, work, dots, n_entries)``: the QR of docs/model.md §4.2 on the first
    ``n_entries`` entries of the vectors; entries past them (the tangent images of :mod:`.tangent_images`, linear
    in the vectors) are carried along: they take the same combinations."""

    def orthonormalize(tangent, log_norms, work, dots, n_entries):
        """Modified Gram-Schmidt, one pass (:func:`.tangent_stages.lyapunov_stage`'s ``orthonormalize``): vector
        j is reduced in ``work`` (at least max(n, k) rows, lanes) against the vectors before it over the first
        n = ``n_entries`` entries; row 0 of ``dots`` takes the running dot product, then the inverse norm, and,
        where ``dots`` has more rows (the tangent images: then the entries past n are carried, else left as they
        are), its rows 1 .. k(k + 1)/2 keep the coefficients (row 1 + j(j + 1)/2 + i: vector i's in vector j, i < j; the
        inverse norm at i = j). The carried entries take the same combinations afterwards, entry by entry, all k
        vectors at once in ``work``: they are read and written once instead of once per pair of vectors. The
        scratch arrays are apart from the vectors, so that the compiler sees that what it writes cannot overlap
        what it reads, and vectorises the loops over lanes."""
        n = n_entries
        n_vec, n_lanes = tangent.shape[0], tangent.shape[2]
        carry = dots.shape[0] > 1       # the coefficients' rows are there: the entries past n are carried
        n_all = tangent.shape[1] if carry else n
        last = dots[0]
        for j in range(n_vec):
            row = 1 + j * (j + 1) // 2
            for s in range(n):
                for lane in range(n_lanes):
                    work[s, lane] = tangent[j, s, lane]
            for i in range(j):
                for lane in range(n_lanes):
                    last[lane] = 0.0
                for s in range(n):
                    for lane in range(n_lanes):
                        last[lane] += tangent[i, s, lane] * work[s, lane]
                for s in range(n):
                    for lane in range(n_lanes):
                        work[s, lane] -= last[lane] * tangent[i, s, lane]
                if carry:
                    for lane in range(n_lanes):
                        dots[row + i, lane] = last[lane]
            for lane in range(n_lanes):
                last[lane] = 0.0
            for s in range(n):
                for lane in range(n_lanes):
                    last[lane] += work[s, lane] * work[s, lane]
            for lane in range(n_lanes):
                norm = math.sqrt(last[lane])
                log_norms[j, lane] += log(norm)
                last[lane] = 1.0 / norm if norm > 0.0 else 1.0
            if carry:
                for lane in range(n_lanes):
                    dots[row + j, lane] = last[lane]
            for s in range(n):
                for lane in range(n_lanes):
                    tangent[j, s, lane] = work[s, lane] * last[lane]
        for s in range(n, n_all):
            for j in range(n_vec):
                for lane in range(n_lanes):
                    work[j, lane] = tangent[j, s, lane]
            for j in range(n_vec):
                row = 1 + j * (j + 1) // 2
                for i in range(j):
                    for lane in range(n_lanes):
                        work[j, lane] -= dots[row + i, lane] * work[i, lane]
                for lane in range(n_lanes):
                    work[j, lane] *= dots[row + j, lane]
                    tangent[j, s, lane] = work[j, lane]

    return jit(orthonormalize)
