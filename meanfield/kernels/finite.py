"""numba kernel of the finite-N token network (docs/model.md §6.1): counter-based random numbers, an exact binomial
sampler, and the loop over (parameter point, replica) pairs.

Column classes. The bits of a token are independent given the attention output ``att`` and bit i has
P(x_i = +1) = (1 + tanh h_i)/2 with h_i = β W^o_i·att (docs/model.md §6.1), so h_i depends only on the column's
output pattern. Columns with identical (W^o, W^v, W^q, W^k) column vectors form a class c of n_c columns
that all have the same mean t_c = tanh(β σ_c·att), and every feature of the token is a sum over classes:
x_se·W^α_se[a] = Σ_c W^α_c[a] S_c with S_c the sum of the class's n_c spins. The kernel samples S_c in one
of three ways (``sampler``):

* ``SAMPLER_BITS`` — every bit drawn on its own (x_i = +1 iff u_i < (1 + t_c)/2, compared in integers,
  :func:`bit_threshold`), bits enumerated class by class (a relabelling of the columns; the spins are
  exchangeable within a class);
* ``SAMPLER_BINOMIAL`` — S_c = 2K - n_c with K ~ Binomial(n_c, (1 + t_c)/2) drawn exactly
  (:func:`binomial_minority`), which has the same distribution as the per-bit sum at O(1) cost per class;
* ``SAMPLER_EXPECTATION`` — S_c = n_c t_c, each bit replaced by its mean: the deterministic "expectation"
  network, whose update is the mean-field map (docs/model.md §6.3).

Random numbers. SplitMix64's output function (Steele, Lea & Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014) applied to a Weyl sequence is used as a counter-based generator:
``child_key(key, i) = mix64(key + (i + 1)·φ64)``. Keys form a tree seed → replica → step, and the uniform
number of bit i (or of binomial draw i) of step t of replica r is ``unit(child_key(step_key, i))``. A
replica's stream therefore depends only on (seed, replica index), never on the batch, the chunking or the
thread count, and the same replica index gives the same stream at every parameter point (common random
numbers across points).
"""
import math

import numpy as np
from numba import prange

from ..compiled_cache import cached_jit
from ..model.layout import (
    F_K,
    F_O,
    F_Q,
    F_V,
    OBS_ATT,
    OBS_MK,
    OBS_MO,
    OBS_MO_SE,
    OBS_MQ,
    OBS_MV,
    P_BETA,
    P_EPS_PE,
    P_GAMMA,
    P_W,
)

# Module globals are frozen into the compiled code, and numba's disk cache is keyed on THIS file only: after
# a change of the indices in model/layout.py, touch this file (or clear the cache, meanfield/compiled_cache.py)
# to recompile.
SAMPLER_BITS, SAMPLER_BINOMIAL, SAMPLER_EXPECTATION = 0, 1, 2

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
SCALE = 4503599627370496.0  # 2^52
UNIT = 1.0 / SCALE
HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
#: Below this n·p the binomial is drawn by inversion, above by BTRS (Hörmann 1993 requires n·p >= 10).
INVERSION_LIMIT = 10.0
#: log k! is taken from lgamma below this k and from the Stirling series above (error < 1e-17 there).
STIRLING_FROM = 100


@cached_jit()
def mix64(z):
    """SplitMix64 finalizer: a bijection of 64-bit words with full avalanche."""
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@cached_jit()
def child_key(key, index):
    """Key of child ``index`` (>= 0) of ``key``: SplitMix64 output number ``index`` of the stream ``key``."""
    return mix64(key + (np.uint64(index) + np.uint64(1)) * GOLDEN)


@cached_jit()
def unit(key, index):
    """Uniform number in the open interval (0, 1) with 52 random bits: (⌊z/2^12⌋ + 1/2)·2^-52, z =
    ``child_key(key, index)`` (exact in float64, so never 0 or 1)."""
    return (np.float64(child_key(key, index) >> np.uint64(12)) + 0.5) * UNIT


@cached_jit()
def bit_threshold(p):
    """The integer T with ⌊z/2^12⌋ < T exactly when (⌊z/2^12⌋ + 1/2)·2^-52 < p, i.e. when :func:`unit` < p:
    T = ⌊x⌋ + [x - ⌊x⌋ > 1/2] with x = p·2^52 (exact). Lets the per-bit loop compare integers."""
    x = p * SCALE
    whole = math.floor(x)
    return np.uint64(whole + (1 if x - whole > 0.5 else 0))


@cached_jit()
def stirling_tail(k):
    """log k! - [(k + 1/2) log(k + 1) - (k + 1) + log √(2π)], the remainder of Stirling's formula at k + 1."""
    if k < STIRLING_FROM:
        return math.lgamma(k + 1.0) - (k + 0.5) * math.log(k + 1.0) + (k + 1.0) - HALF_LOG_2PI
    kp1 = k + 1.0
    kp1sq = kp1 * kp1
    return (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / kp1sq) / kp1sq) / kp1


@cached_jit()
def binomial_inversion(n, p, key, counter):
    """K ~ Binomial(n, p) by sequential inversion of the CDF (p <= 1/2, n·p small); returns (K, counter).

    f(0) = (1 - p)^n, f(k)/f(k-1) = ((n + 1)/k - 1)·p/(1 - p). A search that passes n through rounding
    restarts with a fresh uniform number (so the result is always in 0..n).
    """
    s = p / (1.0 - p)
    a = (n + 1) * s
    f0 = math.exp(n * math.log1p(-p))
    while True:
        u = unit(key, counter)
        counter += 1
        k = 0
        f = f0
        while u > f and k <= n:
            u -= f
            k += 1
            f *= a / k - s
        if k <= n:
            return k, counter


@cached_jit()
def binomial_btrs(n, p, key, counter):
    """K ~ Binomial(n, p) by Hörmann's transformed rejection with squeeze, BTRS (J. Stat. Comput. Simul.
    46, 1993), for p <= 1/2 and n·p >= 10; returns (K, counter).

    Exact rejection sampling: a candidate k = ⌊(2a/u_s + b)u + c⌋ is accepted in the squeeze region or
    when log(v α/(a/u_s² + b)) <= log f(k)/f(m), m the mode; the log ratio of factorials is written as
    logs of ratios plus Stirling remainders (:func:`stirling_tail`) so it is accurate to ~1e-13 for any n.
    """
    q = 1.0 - p
    spq = math.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    r = p / q
    m = math.floor((n + 1) * p)
    tail_m = stirling_tail(m) + stirling_tail(n - m)
    while True:
        u = unit(key, counter) - 0.5
        v = unit(key, counter + 1)
        counter += 2
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k, counter
        log_v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
                 + (n + 1) * math.log((n - m + 1) / (n - k + 1))
                 + (k + 0.5) * math.log(r * (n - k + 1) / (k + 1))
                 + tail_m - stirling_tail(k) - stirling_tail(n - k))
        if log_v <= bound:
            return k, counter


@cached_jit()
def binomial_minority(n, mean, key, counter):
    """Number of spins against the sign of ``mean`` among n independent ±1 spins of mean ``mean``.

    That count is Binomial(n, (1 - |mean|)/2) (p <= 1/2 computed without cancellation); drawn by
    inversion for n·p < 10 and by BTRS otherwise. Returns (count, counter).
    """
    p = 0.5 * (1.0 - abs(mean))
    if p <= 0.0:
        return 0, counter
    if n * p < INVERSION_LIMIT:
        return binomial_inversion(n, p, key, counter)
    return binomial_btrs(n, p, key, counter)


@cached_jit()
def class_spin_sums(patterns, counts, offsets, beta, att, sampler, step_key, sums):
    """sums[c] = sum of the n_c spins of column class c given the attention output ``att`` (docs/model.md §6.1).

    Counters within ``step_key``: bit i of the token (classes laid out one after another, ``offsets``) uses
    counter i; the binomial draw of class c uses counters c·2^32, c·2^32 + 1, ... (rejection sampling takes
    a random number of them).
    """
    n_feat = att.shape[0]
    for c in range(patterns.shape[0]):
        field = 0.0
        for b in range(n_feat):
            field += patterns[c, F_O, b] * att[b]
        mean = math.tanh(beta * field)
        n = counts[c]
        if sampler == SAMPLER_EXPECTATION:
            sums[c] = n * mean
        elif sampler == SAMPLER_BINOMIAL:
            minority, _ = binomial_minority(n, mean, step_key, c << 32)
            sums[c] = n - 2 * minority if mean >= 0.0 else 2 * minority - n
        else:
            threshold = bit_threshold(0.5 * (1.0 + mean))
            plus = 0
            weyl = step_key + np.uint64(offsets[c]) * GOLDEN  # child_key(step_key, i) = mix64(weyl + (i+1)φ64)
            for _ in range(n):
                weyl += GOLDEN
                if (mix64(weyl) >> np.uint64(12)) < threshold:
                    plus += 1
            sums[c] = 2 * plus - n


@cached_jit(parallel=True)
def run_network(patterns, counts, n_bits, pe_dot, x0_semantic, x0_pe, params, seed, replicas, steps,
                sampler, out):
    """Simulate ``replicas`` networks at every parameter point; out[point, replica, t, observable, a].

    patterns (C, 4, M): the ±1 columns (o, v, q, k) of each class; counts (C,) their sizes, summing to
    n_bits; pe_dot (L, 4, M): pos(n)·W^α_PE[a]/P of the PE code of slot n; x0_semantic, x0_pe (4, M):
    x0_se·W^α_se[a]/N_se and x0_pe·W^α_PE[a]/P of the start token; params (n_points, 4) as
    meanfield.model.layout.PARAMETER_LAYOUT (β, γ, w, ε used).

    Row t = token t (docs/model.md §6.1): row 0 is x0 and att over {x0}; for t >= 1 token t is sampled from att of
    row t-1 with PE bits pos(t mod L), written to ring slot t mod L, and att is the softmax-weighted mean
    of the values of the min(L, t+1) stored tokens with weights exp(γ m^q(x_t)·m^k(x_τ) - max), the max
    shift only avoiding overflow (it cancels in the normalisation). Recorded: att, mo = w mo_se + ε PE
    term, mo_se = x_se·W^o_se/N_se (no factor w, docs/model.md §8), mv, mq, mk of token t.
    """
    n_points = params.shape[0]
    n_classes, n_feat = patterns.shape[0], patterns.shape[2]
    context = pe_dot.shape[0]
    offsets = np.zeros(n_classes, dtype=np.int64)
    for c in range(1, n_classes):
        offsets[c] = offsets[c - 1] + counts[c - 1]
    root = child_key(seed, 0)
    for job in prange(n_points * replicas):
        point = job // replicas
        replica = job - point * replicas
        beta, gamma, w, eps = params[point, P_BETA], params[point, P_GAMMA], params[point, P_W], params[point, P_EPS_PE]
        replica_key = child_key(root, replica)
        keys = np.zeros((context, n_feat))
        values = np.zeros((context, n_feat))
        scores = np.zeros(context)
        sums = np.zeros(n_classes)
        semantic = np.zeros((4, n_feat))
        fields = np.zeros((4, n_feat))
        att = np.zeros(n_feat)
        rec = out[point, replica]
        for t in range(steps):
            slot = t % context
            if t == 0:
                semantic[:, :] = x0_semantic
                fields[:, :] = w * x0_semantic + eps * x0_pe
            else:
                class_spin_sums(patterns, counts, offsets, beta, att, sampler, child_key(replica_key, t), sums)
                for f in range(4):
                    for a in range(n_feat):
                        acc = 0.0
                        for c in range(n_classes):
                            acc += patterns[c, f, a] * sums[c]
                        semantic[f, a] = acc / n_bits
                        fields[f, a] = w * semantic[f, a] + eps * pe_dot[slot, f, a]
            for a in range(n_feat):
                keys[slot, a] = fields[F_K, a]
                values[slot, a] = fields[F_V, a]
            depth = min(context, t + 1)
            top = -np.inf
            for s in range(depth):
                acc = 0.0
                for a in range(n_feat):
                    acc += fields[F_Q, a] * keys[s, a]
                scores[s] = gamma * acc
                top = max(top, scores[s])
            total = 0.0
            for s in range(depth):
                scores[s] = math.exp(scores[s] - top)
                total += scores[s]
            for a in range(n_feat):
                acc = 0.0
                for s in range(depth):
                    acc += scores[s] * values[s, a]
                att[a] = acc / total
                rec[t, OBS_ATT, a] = att[a]
                rec[t, OBS_MO, a] = fields[F_O, a]
                rec[t, OBS_MO_SE, a] = semantic[F_O, a]
                rec[t, OBS_MV, a] = fields[F_V, a]
                rec[t, OBS_MQ, a] = fields[F_Q, a]
                rec[t, OBS_MK, a] = fields[F_K, a]
