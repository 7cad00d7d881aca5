"""Ready-made models (docs/model.md §1.2, §1.3), by name for run files and the command line (:func:`preset`).

``reference``
    The authors' reference implementation's model from its configuration knobs, weights and correlations bit for
    bit (:mod:`meanfield.model.reference_weights`), every correlation mode.
``paper``
    ``reference`` at the values of the paper (``paper.toml``), started from the paper's checkpoint.
``random``
    Random ±1 weights for any number of features M (1..256), tables of the sign classes the columns carry
    (:func:`from_weights`).
``sigma``
    The reference's second model (docs/model.md §10): K patterns on M base patterns by index orders, a named
    configuration of the reference or explicit orders and PE weights.

Every preset also takes the scalar parameters (``beta_o``, ``beta_att``, ``scaling_att``, ``scaling_o``,
``epsilon``, ``gamma``) and PID gains (``control.kp``, ...) by keyword.
"""
from __future__ import annotations

import dataclasses
import tomllib
from importlib import resources

import numpy as np

from ..errors import ConfigError
from ..model.reference_weights import check_reference, reference_construction
from ..model.sigma import SigmaOrders, named_orders
from ..model.spec import (
    CONTROL_PARAMETERS,
    MAX_DENSE_FEATURES,
    MAX_FEATURES,
    SCALAR_PARAMETERS,
    ModelSpec,
    require_int,
)
from ..model.state import State, require_index
from ..model.weights import FEATURES, coefficients_from_correlations, manual_orders, sign_classes

#: Keyword parameters every preset takes (:meth:`ModelSpec.replace`).
PARAMETERS = SCALAR_PARAMETERS + tuple(f"control.{c}" for c in CONTROL_PARAMETERS)
#: The knobs that build each preset's weights (and its context size), besides :data:`PARAMETERS`.
KNOBS = {
    "reference": ("seed", "n_features", "pe_bits", "context", "semantic_bits", "segments", "correlations",
                  "gaussian_scale", "pe_mode", "reorder_weights"),
    "paper": (),
    "random": ("seed", "n_features", "semantic_bits", "pe_bits", "context"),
    "sigma": ("configuration", "n_patterns", "n_base_patterns", "pe_bits", "context", "start_index", "orders_B",
              "orders_P", "W"),
}


def preset_keys(name: str) -> tuple:
    """The keys preset ``name`` accepts (knobs, then scalar parameters and gains); ConfigError if unknown."""
    if name not in KNOBS:
        raise ConfigError(f"model.preset = {name!r} is not allowed: known presets are {sorted(KNOBS)}")
    return KNOBS[name] + PARAMETERS


def _with_parameters(model: ModelSpec, name: str, parameters: dict) -> ModelSpec:
    """``model`` with the scalar ``parameters`` set; ConfigError naming the first key preset ``name`` lacks."""
    allowed = preset_keys(name)
    for key, value in parameters.items():
        if key not in allowed:
            raise ConfigError(f"model.{key} = {value!r} is not allowed with preset {name!r}: its keys are "
                              f"{list(allowed)}")
    return model.replace(**parameters) if parameters else model


def reference(seed: int = 1, n_features: int = 3, pe_bits: int = 2, context: int | None = None,
              semantic_bits: int = 99, segments: int = 3, correlations: str = "segments", gaussian_scale: float = 0.5,
              pe_mode: int = 0, reorder_weights: bool = False, **parameters) -> ModelSpec:
    """The reference implementation's model for one configuration (docs/model.md §1.2), by its knobs.

    Parameters
    ----------
    seed : int
        ``np.random.seed(seed)`` of the reference, 0 .. 2^32-1 (the paper: 1).
    n_features, pe_bits, context, semantic_bits : int
        M (1..3), P (>= 1), L (default 2^P) and N_se (>= P; >= 0 for manual orders).
    segments : int
        Random segments of the semantic columns (mode ``"segments"``, 1..N_se; non-integer N_se/segments
        leave raw columns between segments, as the reference does).
    correlations : str
        ``"segments"`` (the paper), ``"weights"``, ``"gaussian"`` (with ``gaussian_scale`` σ),
        ``"uniform_means"`` or ``"manual_orders"`` (:data:`~meanfield.model.reference_weights.CORRELATIONS`).
    pe_mode : int
        0: PE columns drawn (or, with segments, the last P raw semantic bits); 1: copied from the semantic bits.
    reorder_weights : bool
        All four matrices are row permutations of one shared draw.
    **parameters
        ``beta_o``, ``beta_att`` (2.2), ``scaling_att`` (100), ``scaling_o`` (1), ``epsilon`` (0.02), ``gamma``,
        ``control.<gain>``: the defaults are the reference's paper values.

    Notes
    -----
    The tables come from the pair/quad correlations in the reference's floating-point order
    (:func:`~meanfield.model.weights.coefficients_from_correlations`), equal to its ``corr_signed / 2^(M-1)``
    bit for bit. The model carries the matrices (token starts, finite-N networks; in modes ``"gaussian"`` and
    ``"uniform_means"`` they are the reference's drawn matrices, which do not carry the tables, so a finite
    network refuses them); manual orders have none (PE weights 0). No checkpoint: start from a token, a
    correlation index, a checkpoint file or a state.
    """
    check_reference(seed=seed, n_features=n_features, semantic_bits=semantic_bits, pe_bits=pe_bits,
                    correlations=correlations, segments=segments, gaussian_scale=gaussian_scale, pe_mode=pe_mode,
                    reorder_weights=reorder_weights)
    if correlations == "manual_orders":
        coefficients = manual_orders(n_features)
        pe_weights = {alpha: np.zeros((n_features, pe_bits)) for alpha in FEATURES}
        weights = None
    else:
        weights, pair, quad = reference_construction(seed, n_features, semantic_bits, pe_bits, correlations,
                                                     segments, gaussian_scale, pe_mode, reorder_weights)
        coefficients = coefficients_from_correlations(pair, quad)
        pe_weights = {alpha: w[:, semantic_bits:].astype(np.float64) for alpha, w in weights.items()}
    model = ModelSpec(coefficients=coefficients, pe_weights=pe_weights, weights=weights, name="reference",
                      context=2 ** pe_bits if context is None else context)
    return _with_parameters(model, "reference", parameters)


def paper(beta_o: float | None = None, **parameters) -> ModelSpec:
    """The paper's model (docs/model.md §1.3): :func:`reference` at the values of ``paper.toml`` (seed 1, random
    segments, M = 3, P = 2, L = 4, N_se = 99, ε = 0.02, β_att = 2.2, scaling_att = 100, so γ = 220/√3 ≈ 127.017),
    started by default from the paper's checkpoint (docs/model.md §2.2). Only the scalar parameters can be
    changed (the checkpoint belongs to these weights): for other knobs use :func:`reference`.
    """
    root = resources.files(__name__)
    knobs = tomllib.loads((root / "paper.toml").read_text())
    checkpoint_file = knobs.pop("checkpoint")
    for key, value in parameters.items():
        if key in KNOBS["reference"]:
            raise ConfigError(f"model.{key} = {value!r} is not allowed with preset 'paper' (its checkpoint belongs "
                              "to the paper's weights): use preset = 'reference'")
    with resources.as_file(root / checkpoint_file) as path:
        checkpoint = State.from_checkpoint_file(path, key="paper checkpoint")
    model = dataclasses.replace(reference(**knobs), checkpoint=checkpoint, name="paper")
    if beta_o is not None:
        parameters["beta_o"] = beta_o
    return _with_parameters(model, "paper", parameters)


#: The largest number of PE bits P a model built from weights takes (docs/model.md §1.2).
MAX_PE_BITS = 10


def from_weights(weights: dict, pe_bits: int, context: int = 4, name: str = "weights", **parameters) -> ModelSpec:
    """The model of explicit ±1 weight matrices ``weights`` = {"o", "v", "q", "k": (M, N_se + P) arrays}, the
    last ``pe_bits`` columns positional (docs/model.md §1.1, §1.3), any M up to 256: its tables hold the K <=
    min(2^(M-1), N_se) sign classes the semantic columns carry (:func:`~meanfield.model.weights.sign_classes`),
    so the map costs ∝ K·M per step; the model keeps the matrices (``model.weights``: token starts, finite-N
    networks). ``parameters``: the scalar parameters and PID gains of :data:`PARAMETERS`. No checkpoint: pass
    a start state. ConfigError for an entry other than ±1, shapes that disagree, or M, L, P above
    :data:`~meanfield.model.spec.MAX_FEATURES`, :data:`~meanfield.model.spec.MAX_CONTEXT`, :data:`MAX_PE_BITS`."""
    patterns, coefficients, pe = sign_classes(weights, require_int("pe_bits", pe_bits, 0, MAX_PE_BITS))
    model = ModelSpec(coefficients=coefficients, pe_weights=pe, patterns=patterns, context=context, name=name,
                      weights={alpha: np.asarray(weights[alpha]) for alpha in FEATURES})
    return model.replace(**parameters) if parameters else model


def random(seed: int = 0, n_features: int = 3, semantic_bits: int = 99, pe_bits: int = 2, context: int = 4,
           **parameters) -> ModelSpec:
    """A model built from random ±1 weight matrices (drawn with ``numpy.random.default_rng(seed)``), for any
    number of features M (1..256): :func:`from_weights` of them. No checkpoint: pass a start state."""
    seed = require_int("seed", seed, 0)
    n_features = require_int("n_features", n_features, 1, MAX_FEATURES)
    shape = (n_features, require_int("semantic_bits", semantic_bits, 1)
             + require_int("pe_bits", pe_bits, 0, MAX_PE_BITS))
    rng = np.random.default_rng(seed)
    weights = {alpha: rng.choice([-1, 1], size=shape) for alpha in FEATURES}
    model = from_weights(weights, pe_bits, context, name=f"random-{seed}")
    return _with_parameters(model, "random", parameters)


#: The sigma preset's scalar parameters unless given.
SIGMA_DEFAULTS = {"beta_o": 100.0, "gamma": 100.0, "epsilon": 0.95}


def sigma(configuration: str | None = None, n_patterns: int = 4, n_base_patterns: int = 3, pe_bits: int = 2,
          context: int | None = None, start_index: int = 0, orders_B=None, orders_P=None, W=None,
          **parameters) -> ModelSpec:
    """The reference's sigma model (docs/model.md §10), started where its ``simulate(ini_m_idx)`` starts.

    Parameters
    ----------
    configuration : str, optional
        One of :data:`meanfield.model.sigma.CONFIGURATIONS` (the reference's ``set_orders_manually_*``);
        default ``"4_duplicity_loop_4"`` (the one its model uses) unless explicit orders are given.
    n_patterns, n_base_patterns : int
        K (the reference's ``num_feat_patterns``) and M (``num_feat_patterns_se``); a named configuration fixes
        K and a least M.
    pe_bits, context : int
        P and L (default 2^P; L <= 2^P).
    start_index : int
        The reference's ``ini_m_idx`` (0..K-1): the start window is the one-hot of order_B^v = index, and
        configuration ``"4_cycle_0_1_2_1"`` shifts its PE weights with it.
    orders_B, orders_P, W : array-like, optional
        Explicit orders (4, K) and PE weights (4, K, P) in the reference's feature order q, k, v, o, instead
        of a name (all three together).
    **parameters
        The scalar parameters and PID gains of :data:`PARAMETERS`, among them ``beta_o``, ``gamma`` (used as
        given: the reference's ``gamma_att``) and ``epsilon`` (its ``epsilon_pe``; semantic weight 1 - ε);
        defaults :data:`SIGMA_DEFAULTS`: the reference script's β_o = γ = 100 and the constructor's ε = 0.95.
    """
    n_patterns = require_int("n_patterns", n_patterns, 1, MAX_DENSE_FEATURES)
    n_base_patterns = require_int("n_base_patterns", n_base_patterns, 1, 12)
    pe_bits = require_int("pe_bits", pe_bits, 1, 10)
    explicit = [x is not None for x in (orders_B, orders_P, W)]
    if any(explicit) and (not all(explicit) or configuration is not None):
        raise ConfigError(f"model.configuration = {configuration!r} with orders_B/orders_P/W given: "
                          f"{sum(explicit)} of 3 is not allowed: give a configuration name or all three orders")
    start_index = require_index("start_index", start_index, n_patterns)
    if all(explicit):
        orders = SigmaOrders(orders_B, orders_P, W, n_base_patterns)
        if orders.n_patterns != n_patterns or orders.pe_weights.shape[2] != pe_bits:
            raise ConfigError(f"orders_B/W: K = {orders.n_patterns}, P = {orders.pe_weights.shape[2]} is not "
                              f"allowed: must match n_patterns = {n_patterns} and pe_bits = {pe_bits}")
    else:
        orders = named_orders(configuration or "4_duplicity_loop_4", n_patterns, n_base_patterns, pe_bits,
                              start_index)
    _, coefficients = orders.tables()
    model = ModelSpec(coefficients=coefficients, pe_weights=orders.pe_tables(), sigma=orders,
                      context=2 ** pe_bits if context is None else context, name=f"sigma-{orders.configuration}",
                      **SIGMA_DEFAULTS)
    model = dataclasses.replace(model, checkpoint=State.from_correlation(model, start_index))
    return _with_parameters(model, "sigma", parameters)


PRESETS = {"reference": reference, "paper": paper, "random": random, "sigma": sigma}


def preset(name: str, **keys) -> ModelSpec:
    """Preset ``name`` with ``keys`` (its knobs and scalar parameters, :func:`preset_keys`); an unknown name or
    key is a ConfigError naming it."""
    preset_keys(name)
    return PRESETS[name](**keys)
