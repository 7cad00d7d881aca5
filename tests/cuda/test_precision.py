"""The float32 check against float64, in the simulator."""
import numpy as np
import pytest

import meanfield as mf

from .helpers import SIMULATOR

pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIMULATOR, reason="needs NUMBA_ENABLE_CUDASIM=1 (separate process)")]

#: 31 values, so that 3 evenly spread samples are exactly the ends and the middle (indices 0, 15, 30): β_o = 0.5
#: and 3.0 settle on stable cycles (λ1 ≈ −0.33, −0.14), 1.75 is chaotic (λ1 ≈ +0.055)
BETA = np.linspace(0.5, 3.0, 31)
SAMPLED = np.array([0.5, 1.75, 3.0])


def divergence_by_hand(steps, tolerance=1e-3):
    """Per sampled point, the first of ``steps`` iterations at which the CPU's float64 attention row and the
    simulator's float32 one differ by more than ``tolerance`` in some entry, -1 if never: computed here from
    the two trajectories (float64 on the CPU backend, not the CUDA one precision_check runs)."""
    from meanfield.simulation import simulate_batch
    model, values = mf.presets.paper(), {"beta_o": SAMPLED}
    a64 = simulate_batch(model, steps, 0, parameters=values, record=("att",)).records["att"]
    a32 = simulate_batch(model, steps, 0, parameters=values, record=("att",),
                         compute=mf.Compute(backend="cuda:float32")).records["att"]
    first = []
    for gap in np.abs(a64 - a32).reshape(len(SAMPLED), steps, -1):
        apart = [t for t in range(steps) if gap[t].max() > tolerance]
        first.append(apart[0] if apart else -1)
    return first


def test_precision_check_reports_scalars():
    from meanfield.studies.precision import precision_check
    report = precision_check(mf.presets.paper(), 80, 10, parameters={"beta_o": BETA},
                             lyapunov=2, sample=3, divergence_steps_max=60)
    assert report["float32_check_points"] == 3
    assert report["float32_check_steps"] == 60
    # over 60 steps no point separates by 1e-3 (the chaotic one's float32 rounding, ~1e-7, grows by e^(0.055·60)
    # ≈ 27 at most): counted from the trajectories here. The float64 kernels behind the two counts agree to 1e-12
    # in the simulator, so a count could only differ where a gap sits within 1e-12 of the tolerance
    by_hand = divergence_by_hand(60)
    assert by_hand == [-1, -1, -1]
    assert report["float32_never_diverged"] == by_hand.count(-1)
    assert report["float32_divergence_step_min"] == -1
    assert 0 <= report["float32_lambda1_absdiff_max"] < 0.1
    assert all(isinstance(v, (int, float)) for v in report.values())


def test_a_chaotic_point_diverges_and_the_stable_ones_never_do():
    """400 steps: the chaotic point's float32 run separates from float64 (at the step counted here), the two
    stable cycles' never do; the count agrees with the sign of λ1 measured in float64 on the CPU."""
    from meanfield.simulation import simulate_batch
    from meanfield.studies.precision import precision_check
    report = precision_check(mf.presets.paper(), 400, parameters={"beta_o": BETA}, sample=3,
                             divergence_steps_max=400, classify=False)
    by_hand = divergence_by_hand(400)
    assert by_hand[0] == by_hand[2] == -1 and 0 < by_hand[1] < 400
    assert report["float32_never_diverged"] == by_hand.count(-1) == 2
    # the first separation step is an integer read off the same kind of trajectories: equal (same 1e-12 caveat)
    assert report["float32_divergence_step_min"] == by_hand[1]
    assert report["float32_divergence_step_median"] == float(by_hand[1])
    lyapunov = simulate_batch(mf.presets.paper(), 3000, 1000, parameters={"beta_o": SAMPLED}, lyapunov=1,
                              record=()).lyapunov[:, 0]
    assert report["float32_never_diverged"] == int(np.sum(lyapunov < 0))
