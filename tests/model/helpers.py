"""Helpers of the model tests: an independent transcription of the reference's weight construction
(docs/model.md §1.2) on NumPy's global legacy generator, as the reference calls it."""
import numpy as np

from meanfield.model import weights as W


def pm1(shape):
    return np.random.randint(2, size=shape) * 2 - 1


def transcription(seed, M, N, P, mode, segments=3, scale=0.5, pe_mode=0, reorder=False):
    """The construction as the docs state it, step by step, on the global generator (mode = reference number)."""
    np.random.seed(seed)
    shared = pm1((M, N))
    base = np.zeros((M, N + P))
    base[:, :N] = shared
    base[:, N:] = shared[:, N - P:]
    mats = {}
    if reorder:
        for a in "ovqk":
            mats[a] = base.copy()
            np.random.shuffle(mats[a])
    else:
        for a in "ovqk":
            mats[a] = np.zeros((M, N + P))
            mats[a][:, :N] = pm1((M, N))
        for a in "ovqk":
            mats[a][:, N:] = mats[a][:, N - P:N] if (pe_mode == 1 or mode == 3) else pm1((M, P))
    if mode == 3:
        g = N / segments
        n_pe = int(P / g) + 1
        for a in "ovqk":
            for row in range(M):
                for s in range(segments):
                    value = pm1(1)[0]
                    begin = int(s * g)
                    for col in range(begin, int(begin + g)):
                        mats[a][row, col] = value
                if pe_mode == 1:
                    for k in range(n_pe):
                        source = int((k + segments - n_pe) * g) % (N + P)     # a negative index counts from the end
                        value = mats[a][row, source]
                        for col in range(max(N, int(P - (k + 1) * g)), min(int(N + P - k * g + 1), N + P)):
                            mats[a][row, col] = value
    pair = {a: np.zeros((M, M)) for a in "ovqk"}
    quad = {a: np.zeros(M) for a in "ovqk"} if M == 3 else None
    if mode in (1, 3):
        for a in "ovqk":
            for b in range(M):
                for c in range(M):
                    pair[a][b, c] = sum(mats["o"][b, i] * mats[a][c, i] for i in range(N)) / N
                if M == 3:
                    quad[a][b] = sum(mats["o"][0, i] * mats["o"][1, i] * mats["o"][2, i] * mats[a][b, i]
                                     for i in range(N)) / N
    elif mode == 0:
        for a in "ovkq":
            pair[a] = np.random.normal(0, scale, (M, M))
        for b in range(M):
            pair["o"][b, b] = 1.0
        for a in "ovqk":
            pair[a] = np.minimum(np.maximum(pair[a], -1.0), 1.0)
            if M == 3:
                quad[a] = pair[a][0] * pair[a][1] * pair[a][2]
    elif mode == 2:
        means = {a: np.random.rand(M) for a in "ovqk"}
        for a in "ovqk":
            for b in range(M):
                for c in range(M):
                    pair[a][b, c] = means["o"][b] * means[a][c]
        for b in range(M):
            pair["o"][b, b] = 1.0
        if M == 3:
            mo = means["o"]
            for b in range(3):
                quad["o"][b] = mo[(b + 1) % 3] * mo[(b + 2) % 3]
                for a in "vqk":
                    quad[a][b] = (mo[0] * mo[1] * mo[2]) * means[a][b]
    return mats, pair, quad


def brute_force_tables(mats, N):
    """c^α_a(σ_j) = (1/N_se) Σ_i W^α_{a,i} ([W^o_i = σ_j] - [W^o_i = -σ_j]), column by column (docs/model.md)."""
    M = mats["o"].shape[0]
    patterns = W.sign_patterns(M)
    tables = {a: np.zeros((len(patterns), M)) for a in "ovqk"}
    for i in range(N):
        column = mats["o"][:, i]
        for j, sigma in enumerate(patterns):
            sign = 1 if np.array_equal(column, sigma) else -1 if np.array_equal(column, -sigma) else 0
            for a in "ovqk":
                tables[a][j] += sign * mats[a][:, i]
    return {a: t / N for a, t in tables.items()}
