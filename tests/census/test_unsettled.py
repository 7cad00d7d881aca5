"""Unsettled starts decided (meanfield/census/unsettled.py): below the rest cycle's Neimark–Sacker point the starts
of a 40 000-step census are still closing in on the stable rest cycle (Newton decides them), and below the
period-28 window's lower fold they wander for longer than the census runs (running on decides them). Checked against
``classify`` of long runs from the attractors' states and, independently of the census, from its starts."""
import numpy as np
import pytest
from dask.distributed import Client

import meanfield as mf
from meanfield.analysis import LABELS, classify
from meanfield.systems.starts import sample

#: 0.0013 below the rest cycle's Neimark–Sacker point (1.2434445): max|μ| = 0.99957 per 4 steps.
BELOW_NS = 1.2431
#: 3e-4 below the period-28 cycle's located fold, 1.2669595501 (docs/bifurcations.md §10; a census there was 100 %
#: unsettled; 1e-10 away from it, 1.2666596, the fresh census alone already says chaotic).
BELOW_FOLD = 1.2669595501 - 3e-4
#: 3e-4 below the lower fold of the 1:4 tongue, 1.2494911683 (docs/bifurcations.md §11): the torus passes the ghost
#: of the locked cycle slowly, and one tail of 20 000 steps left the classifier undecided (the attractor was labelled
#: ``unresolved``, where ``classify`` of 10^5 recorded steps says quasi_periodic).
BELOW_TONGUE = 1.2494911683 - 3e-4


def census(beta_o):
    return mf.find_attractors(mf.presets.paper(beta_o=beta_o), 64, 40_000, 20_000, lyapunov=True)


@pytest.mark.slow  # a 64-start census with exponents and 64 Newton confirmations, and a run of 10^6 steps: ~10 s
def test_below_the_neimark_sacker_point_every_start_reaches_the_rest_cycle():
    found = census(BELOW_NS)
    assert found.unsettled_fraction == 0 and len(found.attractors) == 1        # before: 100 % unsettled
    rest, = found.attractors
    assert (rest.label, rest.period, rest.fraction) == ("fixed_point", 4, 1.0) and "Newton" in rest.reason
    model = mf.presets.paper(beta_o=BELOW_NS)
    from_state = classify(mf.simulate(model, 200_000, 100_000, start=rest.state, compute=mf.Compute(progress=False)))
    assert from_state.label == "fixed_point"
    # independently of the census: a start run for 10^6 steps (|μ|^250000 ≈ e^-107) has settled on it
    start = sample(model, 1, "uniform", seed=0)[0]
    long_run = mf.simulate(model, 1_000_000, 900_000, start=start, compute=mf.Compute(progress=False))
    assert classify(long_run).label == "fixed_point"
    assert np.abs(np.asarray(long_run.final_state.att) - np.asarray(
        mf.simulate(model, 1_000_000, 999_999, start=rest.state).final_state.att)).max() < 1e-9


@pytest.mark.slow  # a 64-start census with exponents whose unsettled starts run on 10 tails: ~10 s
def test_below_the_period_28_fold_the_starts_that_wander_longer_are_run_on():
    found = census(BELOW_FOLD)
    assert found.unsettled_fraction <= 0.25                                     # before: 100 % unsettled
    chaotic, = [a for a in found.attractors if a.label == "chaotic"]
    assert chaotic.fraction >= 0.75 and "long transient" in chaotic.reason
    long_run = classify(mf.simulate(mf.presets.paper(beta_o=BELOW_FOLD), 400_000, 200_000, start=chaotic.state,
                                    lyapunov=True, compute=mf.Compute(progress=False)))
    assert long_run.label == "chaotic" and long_run.evidence["lambda1"] > 3 * long_run.evidence["lambda1_stderr"]


@pytest.mark.slow  # a 64-start census with exponents, a labelling run of 2·10^5 steps and long runs to check: ~20 s
def test_below_the_1_4_tongue_the_torus_is_labelled_on_a_longer_run():
    found = census(BELOW_TONGUE)
    assert found.unsettled_fraction <= 0.25 and found.attractors
    assert any("labelled on 200000 steps" in a.reason for a in found.attractors)     # the case this test is about
    model = mf.presets.paper(beta_o=BELOW_TONGUE)
    for a in found.attractors:
        long_run = classify(mf.simulate(model, 200_000, 100_000, start=a.state, lyapunov=True))
        assert a.label == long_run.label != "unresolved"


@pytest.mark.integration   # an in-process Dask cluster
@pytest.mark.slow          # three census points on one worker: ~25 s
def test_a_census_sweep_decides_them_as_the_api_does(tmp_path):
    text = f"""
name = "near"
steps = 40000
transient = 20000
lyapunov = 2

[model]
preset = "paper"

[grid]
beta_o = [{BELOW_NS}, {BELOW_FOLD}, {BELOW_TONGUE}]

[attractors]
starts = 64
"""
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        mf.sweep(text, tmp_path / "near.h5", place=mf.Place(client=client), progress=False)
    stored = mf.open_run(tmp_path / "near.h5")
    for k, beta in enumerate((BELOW_NS, BELOW_FOLD, BELOW_TONGUE)):
        api = mf.find_attractors(mf.presets.paper(beta_o=beta), 64, 40_000, 20_000, lyapunov=2)
        n = len(api.attractors)
        assert int(stored["census_count"][k]) == n
        assert float(stored["census_unsettled"][k]) == api.unsettled_fraction
        assert stored["census_period"][k].values[:n].tolist() == [a.period for a in api.attractors]
        assert stored["census_fraction"][k].values[:n].tolist() == [a.fraction for a in api.attractors]
        assert stored["census_label"][k].values[:n].tolist() == [LABELS.index(a.label) for a in api.attractors]
