"""The finite-N token network (docs/model.md §6.1) next to the mean field it converges to (docs/model.md §6.3).

A token is x ∈ {±1}^(N_se+P): N_se sampled semantic bits and P deterministic PE bits pos(t mod L). Its
features are m^α_a(x) = w (x_se·W^α_se[a])/N_se + ε (x_pe·W^α_PE[a])/P; the attention output over the
last L tokens is att = Σ_τ p_τ m^v(x_τ) with p_τ ∝ exp(γ m^q(x_t)·m^k(x_τ)); the next token's semantic
bits are independent with P(x_i = +1) = (1 + tanh(β W^o_i·att))/2. The kernel is in
:mod:`meanfield.kernels.finite`.

Three trajectories come out of :func:`simulate_finite`: the sampled network (several replicas), the
deterministic "expectation" network (every bit replaced by its mean), and the mean field started so that
it is aligned with the network (docs/model.md §6.3): after L finite steps x0 has left the window, the MF starts from
A = [att_L, …, att_1], Π[d] = pos((L+1-d) mod L), and MF iteration t is finite row t + L + 1. The
expectation network equals that MF to rounding.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ConfigError
from .model.layout import OBSERVABLES, P_W, batch_parameters
from .model.spec import ModelSpec, require_int
from .model.state import State, position_code
from .model.weights import FEATURES, check_weights, sign_classes
from .short_repr import short_repr
from .simulation import simulate_batch

SAMPLERS = ("binomial", "bits")
#: Largest |difference| allowed between the model's coefficient tables and those of the finite weights.
TABLE_TOLERANCE = 1e-12


@short_repr
@dataclass(frozen=True, eq=False)
class FiniteWeights:
    """Weights of a network with ``n_bits`` semantic columns: every column of ``semantic`` repeated
    ``repeat`` times in place (the reference's ``np.repeat``, docs/model.md §6.1), so all column statistics, hence
    the coefficient tables, are those of the source.

    semantic : (4, M, n_src) int8, the source columns of W^o, W^v, W^q, W^k; pe : (4, M, P) W^α_PE.
    """

    semantic: np.ndarray
    pe: np.ndarray
    repeat: int

    @property
    def n_bits(self) -> int:
        """N_se of the network."""
        return self.semantic.shape[2] * self.repeat

    def classes(self) -> tuple[np.ndarray, np.ndarray]:
        """Column classes: ``patterns`` (C, 4, M) float64, the distinct (W^o, W^v, W^q, W^k) columns, and
        ``counts`` (C,) int64, how many of the n_bits columns have each (module docstring of
        :mod:`meanfield.kernels.finite`)."""
        n_alpha, n_feat, n_src = self.semantic.shape
        columns = self.semantic.reshape(n_alpha * n_feat, n_src).T
        unique, counts = np.unique(columns, axis=0, return_counts=True)
        patterns = unique.reshape(-1, n_alpha, n_feat).astype(np.float64)
        return patterns, counts.astype(np.int64) * self.repeat

    def matrices(self) -> dict:
        """The full ±1 matrices {α: (M, n_bits + P) int8} of the network (semantic columns, then PE)."""
        return {alpha: np.hstack([np.repeat(self.semantic[f], self.repeat, axis=1), self.pe[f].astype(np.int8)])
                for f, alpha in enumerate(FEATURES)}

    def token_overlaps(self, x0=None) -> tuple[np.ndarray, np.ndarray]:
        """(x0_se·W^α_se[a]/N_se, x0_pe·W^α_PE[a]/P) as two (4, M) arrays (docs/model.md §2.2, "ponder_pe").

        ``x0`` None is W^o[0] (its PE bits included, as the reference's comparison does, docs/model.md §6.3),
        computed from the source columns without building the token; else an (n_bits + P) ±1 vector.
        """
        n_src, pe_bits = self.semantic.shape[2], self.pe.shape[2]
        source = self.semantic.astype(np.float64)
        if x0 is None:
            per_source = source[0, 0] * self.repeat
            x0_pe = self.pe[0, 0]
        else:
            x0 = np.asarray(x0, dtype=np.float64)
            if x0.shape != (self.n_bits + pe_bits,) or not np.all(np.isin(x0, (-1.0, 1.0))):
                raise ConfigError(f"x0: shape {x0.shape} is not allowed: must be n_bits + P = "
                                  f"{self.n_bits + pe_bits} entries of +1 or -1")
            per_source = x0[:self.n_bits].reshape(n_src, self.repeat).sum(axis=1)
            x0_pe = x0[self.n_bits:]
        semantic = source @ per_source / self.n_bits
        positional = self.pe @ x0_pe / pe_bits if pe_bits else np.zeros(semantic.shape)
        return semantic, positional


def finite_weights(model: ModelSpec, n_bits, weights: dict | None = None) -> FiniteWeights:
    """Weights of an N_se = ``n_bits`` network with exactly the statistics of ``model`` (docs/model.md §6.1).

    The source columns are ``weights`` ({α: (M, N_src + P) ±1}) when given, else ``model.weights``; n_bits
    must be a positive multiple of N_src (each column is repeated n_bits/N_src times). The source must
    reproduce the model's coefficient tables (to 1e-12) and PE weights; a model built from tables alone
    has no columns to replicate (its sign classes do not fix the joint column distribution that sets the
    network's fluctuations), so it needs explicit ``weights``.
    """
    n_bits = require_int("n_bits", n_bits, 1)
    source = weights if weights is not None else model.weights
    if source is None:
        raise ConfigError("weights: this model has no weight matrices (it was built from coefficient tables); "
                          "pass weights={α: (M, N_se + P) ±1 matrices} whose tables equal the model's")
    pe_bits = model.pe_bits
    source = check_weights(source, pe_bits)
    n_src = source["o"].shape[1] - pe_bits
    if source["o"].shape[0] != model.n_features:
        raise ConfigError(f"weights: {source['o'].shape[0]} rows is not allowed: the model has M = {model.n_features}")
    patterns, coefficients, pe = sign_classes(source, pe_bits)
    for alpha in FEATURES:
        gap = _coefficient_gap(model, alpha, patterns, coefficients[alpha])
        if gap > TABLE_TOLERANCE or not np.array_equal(pe[alpha], model.pe_weights[alpha]):
            raise ConfigError(f"weights.{alpha}: these matrices do not carry the model's statistics (coefficient "
                              f"tables differ by {gap:.3g} or PE weights differ); give the model's own weights")
    if n_bits % n_src:
        raise ConfigError(f"n_bits = {n_bits} is not allowed: must be a multiple of the source's N_se = {n_src} "
                          f"(e.g. {n_src * max(1, round(n_bits / n_src))}) so that every column is repeated "
                          "equally and the statistics are exact")
    semantic = np.stack([source[a][:, :n_src] for a in FEATURES]).astype(np.int8)
    return FiniteWeights(semantic=semantic, pe=np.stack([pe[a] for a in FEATURES]), repeat=n_bits // n_src)


def _coefficient_gap(model: ModelSpec, alpha: str, patterns: np.ndarray, coefficients: np.ndarray) -> float:
    """The largest |c^α(σ) - model's c^α(σ)| over the sign patterns of either table (a pattern a table lacks has
    c = 0), whichever rows each keeps (:func:`~meanfield.model.weights.sign_classes`)."""
    rows = {tuple(sigma): row for sigma, row in zip(model.tanh_signs, model.coefficients[alpha])}
    gap = 0.0
    for sigma, row in zip(patterns, coefficients):
        gap = max(gap, float(np.max(np.abs(row - rows.pop(tuple(sigma), 0.0)))))
    return max([gap] + [float(np.max(np.abs(row))) for row in rows.values()])


def aligned_start(model: ModelSpec, att) -> State:
    """The MF state aligned with a finite trajectory (docs/model.md §6.3): A = [att_L, …, att_1] from finite rows
    1..L of ``att`` ((>= L+1, M)) and Π[d] = pos((L+1-d) mod L). MF iteration t then is finite row t+L+1."""
    context, pe_bits = model.context, model.pe_bits
    try:
        att = np.asarray(att, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"att = {att!r} is not allowed: must be an array of finite rows 0..L") from None
    if att.ndim != 2 or att.shape[0] < context + 1:
        raise ConfigError(f"att: shape {att.shape} is not allowed: need finite rows 0..L = 0..{context}")
    codes = [position_code((context + 1 - d) % context % 2 ** pe_bits, pe_bits) for d in range(context)]
    return State(att=att[context:0:-1], pe=np.array(codes).reshape(context, pe_bits))


@short_repr
@dataclass(frozen=True, eq=False)
class FiniteBatch:
    """Results of :func:`simulate_finite_batch` for n parameter points; rows = finite token index t.

    ``replica[name]`` (n, R, steps, M): the sampled networks; ``expectation[name]`` (n, steps, M): the
    expectation network; ``mean_field[name]`` (n, steps, M): the aligned MF (docs/model.md §6.3), NaN in rows
    0..L, with ``mo_se`` divided by w to the finite convention (no factor w, docs/model.md §8);
    ``mean_field_start``: the aligned MF start State of each point.
    """

    n_bits: int
    steps: int
    replicas: int
    seed: int
    sampler: str
    replica: dict
    expectation: dict
    mean_field: dict
    mean_field_start: list


@short_repr
@dataclass(frozen=True, eq=False)
class FiniteTrajectory:
    """One parameter point of the finite network. ``att``, ``mo``, ``mo_se``, ``mv``, ``mq``, ``mk``: replica
    means (steps, M); ``replica``, ``expectation``, ``mean_field``, ``mean_field_start`` as in
    :class:`FiniteBatch` without the point axis. Row t = token t (docs/model.md §6.1); the MF is defined from row
    ``aligned_from`` = L + 1 on."""

    model: ModelSpec
    n_bits: int
    steps: int
    replicas: int
    seed: int
    sampler: str
    att: np.ndarray
    mo: np.ndarray
    mo_se: np.ndarray
    mv: np.ndarray
    mq: np.ndarray
    mk: np.ndarray
    replica: dict
    expectation: dict
    mean_field: dict
    mean_field_start: State

    @property
    def aligned_from(self) -> int:
        """First finite row that has an aligned MF row (L + 1)."""
        return self.model.context + 1

    def aligned_error(self, observable: str = "mo_se", window: int = 20) -> np.ndarray:
        """Per replica (R,): mean of |finite - MF| over all features and the first ``window`` aligned rows."""
        window = require_int("window", window, 1, self.steps - self.aligned_from)
        rows = slice(self.aligned_from, self.aligned_from + window)
        diff = self.replica[observable][:, rows] - self.mean_field[observable][None, rows]
        return np.abs(diff).mean(axis=(1, 2))


@short_repr
@dataclass(frozen=True)
class Replicas:
    """``n`` independent finite networks per point, their tokens drawn by ``sampler`` — "binomial": an exact
    Binomial draw per column class; "bits": every bit drawn (the same distribution, N uniform numbers per step) —
    replica r from the stream (``seed``, r) at every point (common random numbers, docs/model.md §6.1), so a
    result does not depend on the batch it was computed in. ``replicas=4`` is ``Replicas(4)``."""

    n: int
    sampler: str = "binomial"
    seed: int = 0

    def __post_init__(self):
        object.__setattr__(self, "n", require_int("replicas", self.n, 1))
        object.__setattr__(self, "seed", require_int("seed", self.seed, 0, 2 ** 64 - 1))
        if self.sampler not in SAMPLERS:
            raise ConfigError(f"sampler = {self.sampler!r} is not allowed: choose one of {list(SAMPLERS)}")

    @classmethod
    def of(cls, value) -> Replicas:
        """The record ``replicas = value`` asks for (an integer n is ``Replicas(n)``)."""
        return value if isinstance(value, cls) else cls(value)

    @property
    def code(self) -> int:
        """The kernel's code of :attr:`sampler`."""
        from .kernels.finite import SAMPLER_BINOMIAL, SAMPLER_BITS
        return SAMPLER_BINOMIAL if self.sampler == "binomial" else SAMPLER_BITS


def simulate_finite_batch(model: ModelSpec, n_bits, steps, replicas, *, parameters: dict | None = None,
                          x0=None, weights: dict | None = None) -> FiniteBatch:
    """Simulate the finite network at many parameter points (same weights), with its expectation network
    and the aligned mean field (docs/model.md §6.1, §6.3).

    Parameters
    ----------
    model : ModelSpec
    n_bits : int
        N_se, a positive multiple of the source N_se (see :func:`finite_weights`).
    steps : int
        Rows t = 0..steps-1 (row 0 = x0); at least L + 2 so that the MF has a row.
    replicas : int or Replicas
        Independent networks per point, their sampler and seed (:class:`Replicas`; seed in [0, 2^64)).
    parameters : dict of {name: 1-D array}, optional
        Scalar parameters varied over the points, as in :func:`meanfield.simulate_batch`.
    x0 : None or numpy.ndarray
        Start token, a ±1 vector of n_bits + P entries; None is W^o[0] with its own PE bits (docs/model.md §6.3).
    weights : dict, optional
        Explicit source matrices (:func:`finite_weights`); default the model's.
    """
    n_bits = require_int("n_bits", n_bits, 1)
    context = model.context
    steps = require_int("steps", steps, context + 2)
    drawn = Replicas.of(replicas)
    replicas, seed, sampler, code = drawn.n, drawn.seed, drawn.sampler, drawn.code
    params = batch_parameters(model, parameters)
    network = finite_weights(model, n_bits, weights)
    x0_semantic, x0_pe = network.token_overlaps(x0)
    patterns, counts = network.classes()
    pe_bits = model.pe_bits
    codes = np.array([position_code(n % 2 ** pe_bits, pe_bits) for n in range(context)]).reshape(context, pe_bits)
    pe_dot = (np.einsum("fai,ni->nfa", network.pe, codes) / pe_bits if pe_bits
              else np.zeros((context, 4, model.n_features)))

    from .kernels.finite import SAMPLER_EXPECTATION, run_network

    def run(n_replicas, sampler_code):
        out = np.empty((params.shape[0], n_replicas, steps, len(OBSERVABLES), model.n_features))
        run_network(patterns, counts, n_bits, np.ascontiguousarray(pe_dot), x0_semantic, x0_pe, params,
                    np.uint64(seed), n_replicas, steps, sampler_code, out)
        return {name: out[:, :, :, i] for i, name in enumerate(OBSERVABLES)}

    sampled = run(replicas, code)
    expectation = {name: series[:, 0] for name, series in run(1, SAMPLER_EXPECTATION).items()}
    starts = [aligned_start(model, att) for att in expectation["att"]]
    mf = simulate_batch(model, steps - context - 1, parameters=parameters, start=starts).records
    mean_field = {}
    for name in OBSERVABLES:
        series = np.full(expectation[name].shape, np.nan)
        series[:, context + 1:] = mf[name] / params[:, P_W, None, None] if name == "mo_se" else mf[name]
        mean_field[name] = series
    return FiniteBatch(n_bits=n_bits, steps=steps, replicas=replicas, seed=seed, sampler=sampler,
                       replica=sampled, expectation=expectation, mean_field=mean_field, mean_field_start=starts)


def simulate_finite(model: ModelSpec, n_bits, steps, replicas=1, *, x0=None,
                    weights: dict | None = None) -> FiniteTrajectory:
    """Simulate the finite network at one parameter point; see :func:`simulate_finite_batch`.

    Returns a :class:`FiniteTrajectory`: replica means with the observables of :func:`meanfield.simulate`
    (row t = token t), the per-replica arrays, the expectation network and the aligned MF.
    """
    batch = simulate_finite_batch(model, n_bits, steps, replicas, x0=x0, weights=weights)
    means = {name: series[0].mean(axis=0) for name, series in batch.replica.items()}
    first = (lambda d: {name: series[0] for name, series in d.items()})
    return FiniteTrajectory(model=model, n_bits=batch.n_bits, steps=batch.steps, replicas=batch.replicas,
                            seed=batch.seed, sampler=batch.sampler, **means, replica=first(batch.replica),
                            expectation=first(batch.expectation), mean_field=first(batch.mean_field),
                            mean_field_start=batch.mean_field_start[0])
