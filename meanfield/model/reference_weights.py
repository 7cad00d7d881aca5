"""The reference implementation's weights and correlations, bit for bit, for every correlation mode.

The authors' code seeds NumPy's legacy generator once (``np.random.seed(seed)``) and builds the four ±1
matrices W^o, W^v, W^q, W^k ∈ {±1}^{M×(N_se+P)} and the pair/quad correlations in a fixed order of draws
(docs/model.md §1.2). :func:`reference_construction` replays that order on
``numpy.random.RandomState(seed)``, which yields the same stream, so any seed gives the reference's matrices.

Correlation modes (the reference's ``correlations_from_weights`` number in brackets):

* ``"gaussian"`` (0): pair correlations drawn from N(0, σ²); the matrices are drawn but unused;
* ``"weights"`` (1): correlations of the raw random matrices;
* ``"uniform_means"`` (2): products of uniform means; the matrices are drawn but unused;
* ``"segments"`` (3, the paper): matrices constant on random ±1 segments of the semantic columns;
* ``"manual_orders"`` (4): permutation correlations, no draws (:func:`meanfield.weights.manual_orders`).

A ±1 draw is ``2 * randint(2, size) - 1``.
"""
from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from .weights import FEATURES, correlations_from_weights

#: Correlation modes, in the order of the reference's ``correlations_from_weights`` numbers 0..4.
CORRELATIONS = ("gaussian", "weights", "uniform_means", "segments", "manual_orders")
#: The reference builds its tables for M = 1, 2 or 3 only (pair and quad correlations).
MAX_REFERENCE_FEATURES = 3


def _signs(rng: np.random.RandomState, shape) -> np.ndarray:
    return 2 * rng.randint(2, size=shape) - 1


def draw_matrices(rng: np.random.RandomState, n_features: int, semantic_bits: int, pe_bits: int,
                  correlations: str, pe_mode: int, reorder_weights: bool) -> dict:
    """Step (A) without segments: the four (M, N_se + P) int64 ±1 matrices, consuming ``rng`` as the reference.

    One shared (M, N_se) draw W_SE whose last P bits are repeated as PE columns. With ``reorder_weights``
    each matrix is a copy of it with rows permuted by one ``shuffle`` (order o, v, q, k). Otherwise four
    fresh (M, N_se) draws o, v, q, k; their PE columns repeat their own last P bits when ``pe_mode`` = 1 or
    the mode is ``"segments"``, else they are four more (M, P) draws in order o, v, q, k.
    """
    shared = _signs(rng, (n_features, semantic_bits))
    if reorder_weights:
        matrices = {}
        for alpha in FEATURES:
            matrices[alpha] = np.hstack([shared, shared[:, semantic_bits - pe_bits:]])
            rng.shuffle(matrices[alpha])
        return matrices
    semantic = {alpha: _signs(rng, (n_features, semantic_bits)) for alpha in FEATURES}
    if pe_mode == 1 or correlations == "segments":
        positional = {alpha: semantic[alpha][:, semantic_bits - pe_bits:] for alpha in FEATURES}
    else:
        positional = {alpha: _signs(rng, (n_features, pe_bits)) for alpha in FEATURES}
    return {alpha: np.hstack([semantic[alpha], positional[alpha]]) for alpha in FEATURES}


def fill_segments(rng: np.random.RandomState, matrices: dict, semantic_bits: int, pe_bits: int, segments: int,
                  pe_mode: int) -> None:
    """Step (A), mode ``"segments"``: overwrite ``matrices`` in place with random ±1 segments.

    With g = N_se / segments (a float), for matrices o, v, q, k and rows a = 0..M-1, segment s gets one ±1
    draw written to columns [b, int(b + g)) with b = int(s·g). The end is computed from the truncated start,
    so for non-integer g a column between two segments (and possibly the last one) is never written and keeps
    the bit drawn by :func:`draw_matrices` (N_se = 99, 4 segments: columns 48, 73, 98). With ``pe_mode`` = 1
    the PE columns of the row then copy segment values: n = int(P / g) + 1 blocks k = 0..n-1, columns
    [max(N_se, int(P - (k+1)·g)), int(N_se + P - k·g + 1)) take the value of column int((k + segments - n)·g),
    with NumPy's slice and index rules (clipped ends, negative indices from the end).
    """
    size = semantic_bits / segments
    pe_blocks = int(pe_bits / size) + 1
    shift = segments - pe_blocks
    for alpha in FEATURES:
        for row in matrices[alpha]:                                  # rows are views: written in place
            for s in range(segments):
                begin = int(s * size)
                row[begin:int(begin + size)] = _signs(rng, 1)[0]
            if pe_mode == 1:
                for k in range(pe_blocks):
                    first = max(semantic_bits, int(pe_bits - (k + 1) * size))
                    row[first:int(semantic_bits + pe_bits - k * size + 1)] = row[int((k + shift) * size)]


def draw_correlations(rng: np.random.RandomState, n_features: int, correlations: str,
                      gaussian_scale: float) -> tuple[dict, dict | None]:
    """Step (B) for the modes whose correlations are drawn, after the matrices: (pair, quad).

    ``"gaussian"``: four ``normal(0, σ, (M, M))`` draws in order C^o, C^v, C^k, C^q (k before q);
    diag(C^o) = 1; each clipped to [-1, 1]; for M = 3, Q^α[a] = Π_b C^α[b, a].
    ``"uniform_means"``: four ``rand(M)`` draws m_o, m_v, m_q, m_k; C^α[b, a] = m_o[b]·m_α[a];
    diag(C^o) = 1; for M = 3, Q^o[b] = m_o[b+1]·m_o[b+2] (indices mod 3) and
    Q^α[b] = (m_o[0]·m_o[1]·m_o[2])·m_α[b] for α = v, q, k.
    """
    quad = None
    if correlations == "gaussian":
        drawn = {alpha: rng.normal(0, gaussian_scale, (n_features, n_features)) for alpha in ("o", "v", "k", "q")}
        np.fill_diagonal(drawn["o"], 1)
        pair = {alpha: np.clip(drawn[alpha], -1, 1) for alpha in FEATURES}
        if n_features == 3:
            quad = {alpha: np.prod(pair[alpha], axis=0) for alpha in FEATURES}
        return pair, quad
    means = {alpha: rng.rand(n_features) for alpha in FEATURES}
    pair = {alpha: np.outer(means["o"], means[alpha]) for alpha in FEATURES}
    np.fill_diagonal(pair["o"], 1)
    if n_features == 3:
        m_o = means["o"]
        triple = m_o[0] * m_o[1] * m_o[2]
        quad = {alpha: triple * means[alpha] for alpha in FEATURES}
        quad["o"] = np.array([m_o[(b + 1) % 3] * m_o[(b + 2) % 3] for b in range(3)])
    return pair, quad


def reference_construction(seed: int, n_features: int, semantic_bits: int, pe_bits: int, correlations: str,
                           segments: int = 3, gaussian_scale: float = 0.5, pe_mode: int = 0,
                           reorder_weights: bool = False) -> tuple[dict, dict, dict | None]:
    """The reference's ``(matrices, pair, quad)`` for a seed, any mode but ``"manual_orders"``.

    ``matrices[α]`` (M, N_se + P) int64 ±1 (steps (A) above); ``pair[α][b, a]`` (M, M) with b the o-pattern;
    ``quad[α]`` (M,) for M = 3, else None. All draws come from ``RandomState(seed)`` in the reference's order:
    :func:`draw_matrices`, then :func:`fill_segments` (mode ``"segments"``), then :func:`draw_correlations`
    (modes ``"gaussian"``, ``"uniform_means"``); modes ``"weights"`` and ``"segments"`` correlate the matrices'
    semantic columns (:func:`meanfield.weights.correlations_from_weights`).
    """
    check_reference(seed=seed, n_features=n_features, semantic_bits=semantic_bits, pe_bits=pe_bits,
                    correlations=correlations, segments=segments, gaussian_scale=gaussian_scale, pe_mode=pe_mode,
                    reorder_weights=reorder_weights)
    if correlations == "manual_orders":
        raise ConfigError("correlations = 'manual_orders' draws nothing: use meanfield.model.weights.manual_orders")
    rng = np.random.RandomState(seed)
    matrices = draw_matrices(rng, n_features, semantic_bits, pe_bits, correlations, pe_mode, reorder_weights)
    if correlations == "segments":
        fill_segments(rng, matrices, semantic_bits, pe_bits, segments, pe_mode)
    if correlations in ("gaussian", "uniform_means"):
        pair, quad = draw_correlations(rng, n_features, correlations, gaussian_scale)
    else:
        pair, quad = correlations_from_weights(matrices, pe_bits)
    return matrices, pair, quad


def _integer(key: str, value, minimum: int, maximum: int, why: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not minimum <= value <= maximum:
        raise ConfigError(f"{key} = {value!r} is not allowed: must be an integer in {minimum}..{maximum}{why}")
    return int(value)


def check_reference(*, seed, n_features, semantic_bits, pe_bits, correlations, segments, gaussian_scale, pe_mode,
                    reorder_weights) -> None:
    """Raise ConfigError naming the first knob the reference cannot build (or builds into a broken model)."""
    _integer("seed", seed, 0, 2 ** 32 - 1, " (NumPy's legacy seed)")
    _integer("n_features", n_features, 1, MAX_REFERENCE_FEATURES,
             " (the reference's correlation modes; use preset = 'random' for larger M)")
    if correlations not in CORRELATIONS:
        raise ConfigError(f"correlations = {correlations!r} is not allowed: choose from {list(CORRELATIONS)} "
                          "(the reference's modes 0..4)")
    _integer("pe_bits", pe_bits, 1, 64)
    if correlations == "manual_orders":
        _integer("semantic_bits", semantic_bits, 0, 1_000_000)
    else:
        _integer("semantic_bits", semantic_bits, pe_bits, 1_000_000,
                 f" (the PE columns repeat the last pe_bits = {pe_bits} semantic bits)")
    if correlations == "segments":
        _integer("segments", segments, 1, semantic_bits, f" (at most semantic_bits = {semantic_bits})")
    if correlations == "gaussian":
        scale = gaussian_scale
        if isinstance(scale, bool) or not isinstance(scale, (int, float, np.number)) or not 0 <= scale < np.inf:
            raise ConfigError(f"gaussian_scale = {gaussian_scale!r} is not allowed: must be a finite number >= 0")
    _integer("pe_mode", pe_mode, 0, 1)
    if not isinstance(reorder_weights, (bool, np.bool_)):
        raise ConfigError(f"reorder_weights = {reorder_weights!r} is not allowed: must be true or false")
