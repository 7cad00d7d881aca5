"""The mean-field system in plain numpy (docs/model.md): what a model is and what the kernels are given.

spec
    :class:`ModelSpec`, :class:`Control` and the validators of user input.
state
    :class:`State` (attention and PE windows, controller state), position codes, the reference's starts (token,
    correlation index, checkpoint file).
weights
    Coefficient tables c^α for any number of features M, from weights, correlations or the manual orders.
reference_weights
    The reference implementation's weight matrices and correlations, bit for bit, for every correlation mode.
equations
    The map and the PID law as they read in the paper (the kernels are tested against them).
layout
    The kernels' interface: the one place where parameter columns, controller rows and observable codes are
    defined, and the arrays built from a model.
"""
from .equations import controlled_step, mean_field_step
from .layout import DIVERGENCE_BOUND, OBSERVABLES
from .spec import Control, ModelSpec
from .state import State, pattern_token, position_code

__all__ = ["ModelSpec", "Control", "State", "OBSERVABLES", "DIVERGENCE_BOUND", "pattern_token", "position_code",
           "mean_field_step", "controlled_step"]
