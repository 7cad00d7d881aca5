"""The batched images and Jacobians of the continuation (meanfield.kernels.cpu.images_and_jacobians) against the
plain-numpy map and the one-point analytic Jacobian, point by point, at the paper's shape (fixed-size kernels)
and at a run-time shape."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.kernels.cpu import attention_jacobian, images_and_jacobians
from meanfield.model.equations import mean_field_step, step_tables


@pytest.mark.parametrize("model", [mf.presets.paper(),
                                   mf.presets.random(seed=4, n_features=8, semantic_bits=40, context=4, pe_bits=2)],
                         ids=["paper", "M8_L4"])
def test_batched_images_and_jacobians_are_the_maps(model):
    rng = np.random.default_rng(1)
    L, M, P = model.context, model.n_features, model.pe_bits
    att = rng.uniform(-0.9, 0.9, (5, L, M))
    pe = rng.choice([-1.0, 1.0], (5, L, P))
    tables = step_tables(model.replace(beta_o=1.3))
    images, jacobians = images_and_jacobians(*tables, pe, att)
    for i in range(5):
        expected = mean_field_step(model.replace(beta_o=1.3), att[i], pe[i], tables)[0].ravel()
        # the compiled step and the numpy transcription sum in different orders: rounding only
        assert np.max(np.abs(images[i] - expected)) < 1e-14
        assert np.array_equal(jacobians[i], attention_jacobian(*tables, pe[i], att[i]))
