"""Weight statistics -> mean-field coefficient tables, for any number of features M.

The semantic mean field of feature α (docs/model.md §1.1) is

    m^α_a(A) = (1-ε) Σ_{σ: σ_0=+1} c^α_a(σ) tanh(β_o σ·A) + ε (1/P) Σ_k W^α_PE[a,k] p_k,
    c^α_a(σ) = f(σ) μ^α_a(σ) - f(-σ) μ^α_a(-σ),

where σ runs over the output patterns W^o_i ∈ {±1}^M of the semantic columns with σ_0 = +1, f(σ) is the
fraction of columns with pattern σ and μ^α_a(σ) the mean of W^α_{i,a} over them. Only the patterns that the
columns carry have a non-zero c: at most min(2^(M-1), N_se) of them.

Three ways to build the tables (the reference's own weights and correlations, every mode, come from
:mod:`.reference_weights`):

* :func:`sign_classes` — explicit ±1 matrices, any M: the K patterns the columns carry and their rows
  ``coefficients[α][k, a]`` (the sign-class formula above), in the row order of :func:`sign_patterns`;
* :func:`coefficients_from_correlations` — explicit pair/quad correlations for M <= 3, with the reference's
  floating-point order K = S·E, c = K / 2^(M-1) (docs/model.md §1.1): all 2^(M-1) rows of
  :func:`sign_patterns`, indexed ``coefficients[α][j, a]``;
* :func:`manual_orders` — the reference's "manual orders" mode (docs/model.md §1.2).
"""
from __future__ import annotations

import numpy as np

from ..errors import ConfigError

FEATURES = ("o", "v", "q", "k")


def sign_patterns(n_features: int) -> np.ndarray:
    """Output patterns σ ∈ {±1}^M with σ_0 = +1, in the reference's row order (docs/model.md §1.1, matrix S).

    Row j has σ_b = -1 where bit (M-1-b) of j is set, which gives S = [[1,1,1],[1,1,-1],[1,-1,1],[1,-1,-1]]
    (first M columns) for M = 3.
    """
    rows = np.arange(2 ** (n_features - 1))[:, None]
    shifts = n_features - 1 - np.arange(n_features)[None, :]
    bits = (rows >> np.maximum(shifts, 0)) & 1
    bits[:, 0] = 0
    return (1 - 2 * bits).astype(np.float64)


def _check_pm1(name: str, matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or not np.all(np.isin(matrix, (-1, 1))):
        raise ConfigError(f"weights.{name}: every entry must be +1 or -1 in a 2-D (M, N) matrix; "
                          f"got shape {matrix.shape} with values {np.unique(matrix)[:6]}")
    return matrix.astype(np.int64)


def check_weights(weights: dict, pe_bits: int) -> dict:
    """Validate explicit ±1 weight matrices {α: (M, N_se + P)} and return them as int64 arrays."""
    missing = set(FEATURES) - set(weights)
    if missing:
        raise ConfigError(f"weights: missing matrices {sorted(missing)}; need all of {list(FEATURES)}")
    out = {alpha: _check_pm1(alpha, weights[alpha]) for alpha in FEATURES}
    shapes = {m.shape for m in out.values()}
    if len(shapes) != 1:
        raise ConfigError(f"weights: all four matrices must have the same shape; got {sorted(shapes)}")
    (n_features, n_cols), = shapes
    if n_cols <= pe_bits:
        raise ConfigError(f"weights: need more than pe_bits={pe_bits} columns (semantic + PE); got {n_cols}")
    return out


def sign_classes(weights: dict, pe_bits: int) -> tuple[np.ndarray, dict, dict]:
    """The sign classes of explicit ±1 matrices, any M: ``(patterns, coefficients, pe)``.

    ``patterns`` (K, M) are the distinct σ = ±W^o_i (σ_0 = +1) of the semantic columns, in the row order of
    :func:`sign_patterns` (as if the rows of all 2^(M-1) patterns that no column carries were dropped);
    ``coefficients`` {α: (K, M)} c^α_a(σ) = (1/N_se) [Σ_{i: W^o_i = σ} W^α_{i,a} - Σ_{i: W^o_i = -σ} W^α_{i,a}]
    (the module docstring), sums of integers, so each row equals the row of the full 2^(M-1) table bit for bit;
    ``pe`` {α: (M, P)} the PE weights W^α_PE. Memory and cost ∝ N_se·M, never 2^(M-1).
    """
    weights = check_weights(weights, pe_bits)
    n_se = weights["o"].shape[1] - pe_bits
    semantic = {alpha: weights[alpha][:, :n_se] for alpha in FEATURES}
    flip = semantic["o"][0]                                    # column i is in the class of σ = flip_i W^o_i
    minus = (semantic["o"] * flip < 0).T.astype(np.uint8)      # (N_se, M): 1 where σ_b = -1
    # lexicographic order of the bit rows = the order of the row index j of sign_patterns
    classes, member = np.unique(minus, axis=0, return_inverse=True)
    member = member.ravel()
    coefficients = {}
    for alpha in FEATURES:
        sums = np.zeros((len(classes), semantic[alpha].shape[0]), dtype=np.int64)
        np.add.at(sums, member, (semantic[alpha] * flip).T)
        coefficients[alpha] = sums / n_se
    pe = {alpha: weights[alpha][:, n_se:].astype(np.float64) for alpha in FEATURES}
    return 1.0 - 2.0 * classes, coefficients, pe


def correlations_from_weights(weights: dict, pe_bits: int) -> tuple[dict, dict]:
    """Pair C^α[b,a] and (M = 3) quad Q^α[a] correlations over the semantic columns (docs/model.md §1.1).

    Sums of exact ±1 products divided by N_se, as the reference computes them.
    """
    weights = check_weights(weights, pe_bits)
    w_o = weights["o"]
    n_features, n_cols = w_o.shape
    n_se = n_cols - pe_bits
    pair = {alpha: (w_o[:, :n_se] @ weights[alpha][:, :n_se].T) / n_se for alpha in FEATURES}
    quad = None
    if n_features == 3:
        triple = w_o[0, :n_se] * w_o[1, :n_se] * w_o[2, :n_se]
        quad = {alpha: (weights[alpha][:, :n_se] @ triple) / n_se for alpha in FEATURES}
    return pair, quad


def reference_sign_matrix(n_features: int) -> np.ndarray:
    """The reference's S (docs/model.md §1.1): 1x1, 2x2, or 4x4 for M = 3 (column 3 = product of columns 1 and 2)."""
    patterns = sign_patterns(n_features)
    if n_features == 3:
        patterns = np.column_stack([patterns, patterns[:, 1] * patterns[:, 2]])
    return patterns


def coefficients_from_correlations(pair: dict, quad: dict | None = None) -> dict:
    """Coefficient tables from explicit correlations for M <= 3, in the reference's order (docs/model.md §1.1).

    E^α = C^α (M < 3) or C^α stacked with Q^α (M = 3); K^α = S·E^α summed sequentially over b;
    c^α = K^α / 2^(M-1) (an exact power-of-two scaling, so the kernel's Σ_j c h equals the reference's
    Σ_j K h / 2^(M-1) bit for bit).
    """
    n_features = np.asarray(pair["o"]).shape[0]
    if n_features > 3:
        raise ConfigError(f"correlations: explicit pair/quad correlations support M <= 3 (as the reference); "
                          f"got M={n_features}; build from weights instead")
    if n_features == 3 and quad is None:
        raise ConfigError("correlations.quad: required for M = 3 (the triple Walsh term)")
    signs = reference_sign_matrix(n_features)
    coefficients = {}
    for alpha in FEATURES:
        even = np.asarray(pair[alpha], dtype=np.float64)
        if even.shape != (n_features, n_features):
            raise ConfigError(f"correlations.pair.{alpha}: expected shape ({n_features}, {n_features}); "
                              f"got {even.shape}")
        if n_features == 3:
            even = np.vstack([even, np.asarray(quad[alpha], dtype=np.float64)[None, :]])
        signed = np.zeros((signs.shape[0], n_features))
        for b in range(signs.shape[1]):
            signed += signs[:, b:b + 1] * even[b:b + 1, :]
        coefficients[alpha] = signed / 2 ** (n_features - 1)
    return coefficients


def manual_orders(n_features: int) -> dict:
    """Coefficient tables of the reference's "manual orders" mode (docs/model.md §1.2), M <= 3.

    Orders o = q = k = identity, v = roll(identity, -1); E^α[b,a] = [order_o[b] == order_α[a]];
    K^α = S·E^α with the first M columns of S; the PE weights are zero.
    """
    identity = np.arange(n_features)
    orders = {"o": identity, "v": np.roll(identity, -1), "q": identity, "k": identity}
    signs = sign_patterns(n_features)
    coefficients = {}
    for alpha in FEATURES:
        even = (identity[:, None] == orders[alpha][None, :]).astype(np.float64)
        coefficients[alpha] = (signs @ even) / 2 ** (n_features - 1)
    return coefficients
