"""The float32 check against float64, in the simulator."""
import numpy as np
import pytest

import meanfield as mf

from .helpers import SIMULATOR

pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIMULATOR, reason="needs NUMBA_ENABLE_CUDASIM=1 (separate process)")]


def test_precision_check_reports_scalars():
    from meanfield.studies.precision import precision_check
    report = precision_check(mf.presets.paper(), 80, 10, parameters={"beta_o": np.linspace(0.5, 3.0, 30)},
                             lyapunov=2, sample=3, divergence_steps_max=60)
    assert report["float32_check_points"] == 3
    assert report["float32_check_steps"] == 60
    assert 0 <= report["float32_never_diverged"] <= 3
    assert 0 <= report["float32_lambda1_absdiff_max"] < 0.1
    assert all(isinstance(v, (int, float)) for v in report.values())
