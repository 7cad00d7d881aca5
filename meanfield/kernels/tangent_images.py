"""The tangent map from the tangent images of the new rows (docs/model.md §4.1), compiled by
:func:`.step.build_steps` for the run-time sizes: no token Jacobian is formed.

A window row's value and key fields depend on that row alone, so their derivatives along a tangent vector δA are
the *images* δm^v[d] = J^v_d δA[d] and δm^k[d] = J^k_d δA[d], with
J^f_d δx = w Σ_j c^f[j, :] β (1 - h_dj²) (σ_j · δx). A row's images are computed once, when it is the newest row
(4·K·M multiply-adds a vector against the 3·K·M² of its three Jacobians), and kept with the vector: since they are
linear in it, the QR's combinations of the vectors apply to them as well (:func:`.lane_sums.orthonormalizer`
carries them). The new row of the tangent vector is then

    δa = Σ_d p_d (δm^v[d] + (m^v[d] - a) δs_d),   δs_d = γ (m^q · δm^k[d] + m^k[d] · δm^q),

the chain rule of docs/model.md §4 applied to δA instead of formed as the gradient (L·M² entries). A vector has
the entries of the window (L·M), the PID coordinates (2M, docs/model.md §5.2), then the carried images: the value
rows (L·M, ring order), the key rows (L·M) and the newest row's query (M): 3·(L + 1)·M entries.
"""
from collections.abc import Callable
from typing import NamedTuple

from ..model import layout


class ImageStage(NamedTuple):
    """The functions of :func:`image_stage`."""

    token_images: Callable
    start_images: Callable
    attention_images: Callable


def image_stage(jit, tokens, tanh_slopes):
    """``token_images``, ``start_images`` and ``attention_images``, calling ``slot_of``, ``token_fields``,
    ``signed_sums`` and ``value_query_key`` of ``tokens`` (a :class:`.map_stages.TokenStage` of the run-time sizes) and
    ``tanh_slopes``; returns an :class:`ImageStage`."""
    F_V, F_Q, F_K = layout.F_V, layout.F_Q, layout.F_K
    P_GAMMA, P_W = layout.P_GAMMA, layout.P_W
    slot_of, token_fields, value_query_key = tokens.slot_of, tokens.token_fields, tokens.value_query_key
    signed_sums = tokens.signed_sums

    @jit
    def token_images(coef, signs, params, slopes, tangent, slot, work):
        """The images of window slot ``slot`` of every vector, for the token whose tanh slopes β (1 - h_j²) are
        ``slopes`` (J, lanes): value and key into that slot's image entries, query into the query entries.
        ``work`` = (dh, sums), scratch: dh[1] (J, lanes) takes the slopes times σ_j · δA, sums (4, M, lanes) their
        sums over the classes."""
        dh, sums = work
        n_pat, n_feat, n_lanes = signs.shape[0], signs.shape[1], slopes.shape[1]
        n_rows = (tangent.shape[1] - 3 * n_feat) // (3 * n_feat)
        base = slot * n_feat
        base_v = (n_rows + 2) * n_feat + base
        base_k = base_v + n_rows * n_feat
        base_q = (3 * n_rows + 2) * n_feat
        for j in range(tangent.shape[0]):
            vector, projected = tangent[j], dh[1]
            signed_sums(signs, vector, base, projected)
            for i in range(n_pat):
                for lane in range(n_lanes):
                    projected[i, lane] *= slopes[i, lane]
            for a in range(n_feat):
                value_query_key(coef, projected, a, sums)
                for lane in range(n_lanes):
                    w = params[P_W, lane]
                    vector[base_v + a, lane] = w * sums[F_V, a, lane]
                    vector[base_k + a, lane] = w * sums[F_K, a, lane]
                    vector[base_q + a, lane] = w * sums[F_Q, a, lane]

    @jit
    def start_images(coef, signs, params, att_ring, head, pe_terms, tangent, work):
        """The images of window rows 1 .. L - 1 when the vectors start (docs/model.md §4.2, Q = I): each row's
        tanh slopes recomputed from the window (its fields go to scratch), then :func:`token_images`. Row 0's
        come with the step."""
        dh, sums = work
        n_rows = att_ring.shape[0]
        for d in range(1, n_rows):
            slot = slot_of(head, d, n_rows)
            token_fields(coef, signs, params, att_ring, slot, pe_terms, dh[0], sums, sums[0], False)
            tanh_slopes(params, dh[0])
            token_images(coef, signs, params, dh[0], tangent, slot, work)

    @jit
    def attention_images(params, fields, v_ring, k_ring, head, p, att_new, tangent, new_rows, work):
        """new_rows[j] = δa of vector j (the module's formula; ``att_new`` the uncontrolled output, ``p`` the
        weights by logical row, the newest row's images already computed); ``work`` (at least 1, lanes) takes δs
        row by row."""
        n_rows, n_feat, n_lanes = v_ring.shape[0], v_ring.shape[1], p.shape[1]
        base_q = (3 * n_rows + 2) * n_feat
        score = work[0]
        for j in range(tangent.shape[0]):
            vector, row = tangent[j], new_rows[j]
            for a in range(n_feat):
                for lane in range(n_lanes):
                    row[a, lane] = 0.0
            for d in range(n_rows):
                slot = slot_of(head, d, n_rows)
                base_v = (n_rows + 2 + slot) * n_feat
                base_k = base_v + n_rows * n_feat
                for lane in range(n_lanes):
                    score[lane] = 0.0
                for c in range(n_feat):
                    for lane in range(n_lanes):
                        score[lane] += (fields[F_Q, c, lane] * vector[base_k + c, lane]
                                        + k_ring[slot, c, lane] * vector[base_q + c, lane])
                for lane in range(n_lanes):
                    score[lane] *= params[P_GAMMA, lane]
                for a in range(n_feat):
                    for lane in range(n_lanes):
                        row[a, lane] += p[d, lane] * (vector[base_v + a, lane]
                                                      + (v_ring[slot, a, lane] - att_new[a, lane]) * score[lane])

    return ImageStage(token_images, start_images, attention_images)
