"""Peers for bench/throughput.py: plain numpy implementations of the map (docs/model.md §3), not used by the package.

``VectorisedPeer`` iterates a whole batch of β values at once (arrays (n, L, M)), recomputing every window
row each step like the reference does; with exponents it forms the attention Jacobian's first block row
with the formulas of docs/model.md §4 and re-orthonormalises with numpy's batched QR every step.
"""
import numpy as np

from meanfield.model.layout import batch_parameters, map_tables


class VectorisedPeer:
    def __init__(self, model, betas):
        self.coef, self.signs, w_pe = map_tables(model)
        params = batch_parameters(model, {"beta_o": betas})
        self.beta, self.gamma, self.w, self.eps = (params[:, i] for i in range(4))
        self.w_pe = w_pe
        self.pe_bits = w_pe.shape[2]

    def fields(self, att, pe):
        """h (n, L, J) and mean fields (4, n, L, M) of every window row."""
        h = np.tanh(self.beta[:, None, None] * np.einsum("ndb,jb->ndj", att, self.signs))
        semantic = self.w[None, :, None, None] * np.einsum("fja,ndj->fnda", self.coef, h)
        positional = self.eps[None, :, None, None] * np.einsum("fai,di->fda", self.w_pe, pe)[:, None] / self.pe_bits
        return h, semantic + positional

    def step(self, att, pe, with_grad=False):
        h, (m_o, m_v, m_q, m_k) = self.fields(att, pe)
        q = m_q[:, 0]
        scores = self.gamma[:, None] * np.einsum("nb,ndb->nd", q, m_k)
        p = np.exp(scores - scores.max(1, keepdims=True) + 10)
        p /= p.sum(1, keepdims=True)
        att_new = np.einsum("nd,nda->na", p, m_v)
        nxt = np.concatenate([att_new[:, None], att[:, :-1]], axis=1)
        if not with_grad:
            return nxt, np.roll(pe, 1, axis=0)
        # docs/model.md §4: d m^f[d,a]/d A[d,b] = w Σ_j c^f[j,a] β (1 - h²) σ_j[b]
        dh = self.beta[:, None, None] * (1 - h ** 2)
        dfield = self.w[None, :, None, None, None] * np.einsum("fja,ndj,jb->fndab", self.coef, dh, self.signs)
        dv, dq, dk = dfield[1], dfield[2][:, 0], dfield[3]
        centred = m_v - att_new[:, None, :]
        grad = p[..., None, None] * (dv + self.gamma[:, None, None, None] * centred[..., None]
                                     * np.einsum("nc,ndcb->ndb", q, dk)[:, :, None, :])
        grad[:, 0] += self.gamma[:, None, None] * np.einsum("nd,nda,ndc,ncb->nab", p, centred, m_k, dq)
        return nxt, np.roll(pe, 1, axis=0), grad

    def run(self, att, pe, steps, exponents=False):
        n, ring, n_feat = att.shape
        if not exponents:
            for _ in range(steps):
                att, pe = self.step(att, pe)
            return att, None
        tangent = np.broadcast_to(np.eye(ring * n_feat), (n, ring * n_feat, ring * n_feat)).copy()
        sums = np.zeros((n, ring * n_feat))
        for _ in range(steps):
            att, pe, grad = self.step(att, pe, with_grad=True)
            rows = tangent.reshape(n, ring, n_feat, -1)
            new_row = np.einsum("ndab,ndbk->nak", grad, rows)
            tangent = np.concatenate([new_row[:, None], rows[:, :-1]], axis=1).reshape(n, ring * n_feat, -1)
            tangent, r = np.linalg.qr(tangent)
            sums += np.log(np.abs(np.diagonal(r, axis1=1, axis2=2)))
        return att, sums / steps


def reference_style_loop(model, att, pe, steps):
    """One point at a time, every window row recomputed each step (the reference's structure)."""
    from meanfield.model.equations import mean_field_step
    for _ in range(steps):
        att, pe, _ = mean_field_step(model, att, pe)
    return att
