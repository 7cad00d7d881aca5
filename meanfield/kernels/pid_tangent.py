"""The analytic Jacobian of the PID-controlled map on the extended state (docs/model.md §5.2).

The controlled map (the control law of docs/model.md §5.1, :mod:`meanfield.kernels.step`) acts on
x = [A row-major (L·M), I (M), e_prev (M)]. Its Jacobian is the shift register of docs/model.md §4 with the newest row
δã = Σ_d ∂a/∂A[d]·δA[d] - (K_P + K_D) δA[0] + K_I δI' - K_D δe_prev, plus δI' = g (ρ δI - δA[0]) (g = 0 where
the clamp is active, and δI' = 0 when K_I = 0) and δe' = -δA[0]. :func:`controlled_jacobian` builds it
column by column with the kernels' own tangent step (``controlled_jacobian`` of
:func:`meanfield.kernels.cpu.tile_kernels`, compiled once and cached), so the tests that compare it with finite
differences of :func:`meanfield.model.equations.controlled_step` check the code the Lyapunov spectra use.
"""
from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from ..model.layout import batch_parameters, control_start, map_tables
from ..model.state import State


def controlled_jacobian(model, state: State, control=None) -> np.ndarray:
    """∂x'/∂x ((L+2)·M square) of the controlled map at a full-window ``state``.

    ``control`` = [r, I, e_prev] (3×M); default: ``state.control``, else the fresh start of
    :func:`meanfield.model.layout.control_start` (I = 0, e_prev = e_0).
    """
    state.check(model)
    if state.att.shape[0] != model.context:
        raise ConfigError(f"state.att: {state.att.shape[0]} rows is not allowed: the Jacobian needs a full "
                          f"window of L = {model.context} rows")
    params = batch_parameters(model)
    if control is None:
        control = control_start(params, state.att[None], [state])[0]
    control = np.ascontiguousarray(control, dtype=np.float64)
    if control.shape != (3, model.n_features):
        raise ConfigError(f"control: shape {control.shape} is not allowed: must be (3, M) = (3, {model.n_features})")
    coef, signs, w_pe = map_tables(model)
    pe = state.pe if model.pe_bits else np.zeros((model.context, 0))
    from .cpu import one_lane, tile_kernels
    kernel = tile_kernels(model.context, model.n_features, signs.shape[0]).controlled_jacobian
    return kernel(coef, signs, w_pe, *one_lane(params[0], pe, state.att), control)


__all__ = ["controlled_jacobian"]
