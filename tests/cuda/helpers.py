"""Models, starts and kernel arguments shared by the CUDA backend tests."""
import os

import numpy as np

import meanfield as mf

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def random_model(seed: int, n_features: int = 4, n_se: int = 40, pe_bits: int = 2, context: int = 5,
                 beta_o: float = 1.4) -> mf.ModelSpec:
    """A model built from random ±1 weight matrices (any M)."""
    return mf.presets.random(seed, n_features, n_se, pe_bits, context, beta_o=beta_o)


def random_start(model: mf.ModelSpec, seed: int, depth: int | None = None) -> mf.State:
    """A random start window of ``depth`` rows (default L) and a random ±1 PE window."""
    rng = np.random.default_rng(seed)
    depth = model.context if depth is None else depth
    att = rng.uniform(-0.8, 0.8, size=(depth, model.n_features))
    pe = rng.choice([-1.0, 1.0], size=(model.context, model.pe_bits))
    return mf.State(att=att, pe=pe)


def kernel_batch(model, parameters, start, steps, transient, n_exponents, record_every=1, n_blocks=4,
                 qr_every=1, selection=(0, 1, 2, 3, 4, 5)):
    """The :class:`~meanfield.model.layout.Batch` a backend gets from :func:`meanfield.simulation.simulate_batch`."""
    from meanfield.model.layout import Batch, batch_parameters, control_start, map_tables
    from meanfield.simulation import _start_arrays
    params = batch_parameters(model, parameters)
    att0, pe0, depth0 = _start_arrays(model, start, params.shape[0])[:3]
    ctrl0 = control_start(params, att0)
    coef, signs, w_pe = map_tables(model)
    return Batch(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, steps, transient, record_every,
                 np.asarray(selection, dtype=np.int64), n_exponents, qr_every, n_blocks)
