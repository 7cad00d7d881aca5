"""Ready-made models. ``paper()`` is the configuration of Poc-López & Aguilera (docs/model.md §1.3)."""
from __future__ import annotations

import tomllib
from importlib import resources

import numpy as np

from ..errors import ConfigError
from ..model.spec import ModelSpec
from ..model.state import State
from ..model.weights import (FEATURES, coefficients_from_correlations, coefficients_from_weights,
                             correlations_from_weights, weights_from_segments)


def paper(beta_o: float | None = None, **overrides) -> ModelSpec:
    """The paper's model: seed-1 segment weights (docs/model.md §1.2), L = 4, P = 2, ε = 0.02, β_att = 2.2,
    scaling_att = 100 (γ = 220/√3 ≈ 127.017, see :class:`~meanfield.model.spec.ModelSpec`), started by default
    from the paper's checkpoint (docs/model.md §2.2).

    The coefficient tables are built from the pair and quad correlations in the reference's floating-point
    order (K = S·E, docs/model.md §1.1), so they carry the reference's ~1e-16 residues. Any scalar parameter
    (``beta_o``, ``beta_att``, ``gamma``, ``epsilon``, ``scaling_att``, ``scaling_o``, ``control.kp``, ...)
    can be overridden by keyword.
    """
    root = resources.files(__name__)
    config = tomllib.loads((root / "paper.toml").read_text())
    pe_bits = len(config["pe_parts"]["o"][0])
    weights = weights_from_segments(config["segments"], config["pe_parts"], config["n_semantic"])
    pair, quad = correlations_from_weights(weights, pe_bits)
    with resources.as_file(root / config["checkpoint"]) as path, np.load(path) as chk:
        checkpoint = State(att=chk["att_window"], pe=chk["pe_window"])
    model = ModelSpec(
        coefficients=coefficients_from_correlations(pair, quad),
        pe_weights={a: np.asarray(w[:, -pe_bits:], dtype=np.float64) for a, w in weights.items()},
        context=config["context"], beta_o=config["beta_o"], beta_att=config["beta_att"],
        scaling_att=config["scaling_att"], scaling_o=config["scaling_o"], epsilon=config["epsilon"],
        weights=weights, checkpoint=checkpoint, name="paper")
    if beta_o is not None:
        overrides["beta_o"] = beta_o
    return model.replace(**overrides) if overrides else model


def random(seed: int, n_features: int = 3, n_semantic: int = 99, pe_bits: int = 2, context: int = 4,
           **overrides) -> ModelSpec:
    """A model built from random ±1 weight matrices (drawn with ``numpy.random.default_rng(seed)``), for any
    number of features M; its tables come from the sign-class formula of :mod:`meanfield.model.weights` and it
    carries the matrices (token starts, finite-N networks). No checkpoint: pass a start state."""
    rng = np.random.default_rng(seed)
    weights = {a: rng.choice([-1, 1], size=(n_features, n_semantic + pe_bits)) for a in FEATURES}
    coefficients, pe = coefficients_from_weights(weights, pe_bits)
    return ModelSpec(coefficients=coefficients, pe_weights=pe, weights=weights, context=context,
                     name=f"random-{seed}", **overrides)


PRESETS = {"paper": paper, "random": random}


def preset(name: str, **overrides) -> ModelSpec:
    """A preset by name (``"paper"``) with overrides; unknown names are a ConfigError."""
    if name not in PRESETS:
        raise ConfigError(f"model.preset = {name!r} is not allowed: known presets are {sorted(PRESETS)}")
    return PRESETS[name](**overrides)
