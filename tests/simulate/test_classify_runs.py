"""A simulated run is classified as a sweep classifies it: ``classify(traj)`` and ``classify(batch, i)`` take the
forcing period (the positional encoding's, docs/classification.md §2) from the run's model, so they give the
label that ``meanfield analyze`` decides from the evidence a sweep's workers measure (the same functions:
``point_evidence`` with the model's forcing period, then ``decide_points``)."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis import LABELS, classify
from meanfield.errors import AnalysisError, ConfigError
from meanfield.sweeps.execute.evidence import point_evidence
from meanfield.sweeps.results.labels import decide_points

# the quick Figure 3 sweep's run length (runs/paper_fig3_quick.toml); β_o = 0.5 is the rest state, a period-4
# cycle locked to the positional encoding (L = 4), 1.28 chaos (tests/analysis/test_paper_labels.py)
STEPS, TRANSIENT = 20_000, 10_000


def sweep_labels(batch, record_every: int = 1):
    """(label, period) per point, as a sweep of ``batch``'s model decides them."""
    model = mf.presets.paper()
    evidence = point_evidence(batch.records["mo_se"], batch.lyapunov, batch.lyapunov_stderr,
                              forcing=model.forcing_period(record_every))
    codes, periods = decide_points(evidence)
    return [(LABELS[c], None if p < 0 else int(p)) for c, p in zip(codes, periods)]


@pytest.fixture(scope="module")
def batch():
    return mf.simulate_batch(mf.presets.paper(), STEPS, TRANSIENT, parameters={"beta_o": [0.5, 1.28]},
                             lyapunov=True, record=("mo_se",))


def test_a_trajectory_of_the_paper_model_at_the_rest_state_is_a_fixed_point():
    traj = mf.simulate(mf.presets.paper(beta_o=0.5), STEPS, TRANSIENT, lyapunov=True, record=("mo_se",))
    assert traj.forcing_period == 4
    out = classify(traj)
    assert (out.label, out.period) == ("fixed_point", 4), out.reason
    # the same series read as an autonomous map is a period-4 cycle: the model's forcing period decides
    unforced = classify(traj, forcing_period=1)
    assert (unforced.label, unforced.period) == ("periodic", 4), unforced.reason


def test_classify_of_a_batch_point_is_the_sweeps_label(batch):
    expected = sweep_labels(batch)
    assert expected[0] == ("fixed_point", 4) and expected[1][0] == "chaotic"
    for i in range(2):
        for out in (classify(batch, i), classify(batch.point(i)), classify(batch, np.int64(i))):
            assert (out.label, out.period) == expected[i], out.reason
    assert batch.point(1).model.beta_o == 1.28 and batch.point(-2).model.beta_o == 0.5
    np.testing.assert_array_equal(batch.point(1).mo_se, batch.records["mo_se"][1])
    np.testing.assert_array_equal(batch.point(1).lyapunov, batch.lyapunov[1])


def test_the_forcing_period_counts_recorded_rows():
    model = mf.presets.paper(beta_o=0.5)
    traj = mf.simulate(model, 4_000, 2_000, record=mf.Record(("mo_se",), every=2))
    assert traj.forcing_period == 2                # L = 4 steps, seen every 2nd step
    out = classify(traj)
    assert (out.label, out.period) == ("fixed_point", 2), out.reason


def test_a_batch_point_must_be_an_index(batch):
    for bad in (2, -3, 0.5, True, "0", None):
        with pytest.raises((AnalysisError, ConfigError)):
            classify(batch, bad)
    with pytest.raises(ConfigError, match="point = 7"):
        batch.point(7)
