"""One answer per attractor: a census attractor is confirmed, and labelled by the classifier's own decision, so
``classify`` of a long run from its state says the same (docs/attractors.md §2).

The three parameter values are where the census and the classifier used to disagree on the paper model:
β_o = 1.24 (a spiral decaying onto the rest cycle, 0.0009 below its Neimark–Sacker point, was reported as two
"periodic" attractors of periods 16 and 116), 1.26405 (a long transient reported as a chaotic attractor) and
1.30 (a set with every exponent negative reported as a torus)."""
import functools

import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis import classify
from meanfield.analysis.fingerprint import fingerprint
from meanfield.analysis.grouping import assign_to_attractors
from meanfield.census.find import _destinations
from meanfield.errors import ConfigError

STARTS, STEPS, TRANSIENT = 64, 40_000, 20_000


def long_run_verdict(model, census, k):
    """classify of a 200 000-step run (transient 50 000) from attractor k's state, and the census attractor
    that run's last tail is identified with (the identity rules of docs/attractors.md §2)."""
    traj = mf.simulate(model, 200_000, 50_000, start=census.attractors[k].state, lyapunov=True)
    known = census.attractors
    where = assign_to_attractors(fingerprint(traj.att[None, -(STEPS - TRANSIENT):]),
                                 np.array([a.period for a in known]), np.array([a.scale for a in known]),
                                 np.array([a.summary for a in known]), [a.points for a in known])[0]
    return classify(traj), int(where)


@pytest.fixture(scope="module", params=[1.24, 1.26405, 1.30])
def census_at(request):
    model = mf.presets.paper(beta_o=request.param)
    return request.param, model, mf.find_attractors(model, STARTS, STEPS, TRANSIENT, lyapunov=True)


@pytest.mark.integration   # long runs: 64 × 40 000-step censuses and 200 000-step runs, with exponents
def test_every_attractor_is_what_classify_says_of_a_long_run_from_it(census_at):
    beta, model, census = census_at
    assert census.attractors, beta
    for k, a in enumerate(census.attractors):
        verdict, where = long_run_verdict(model, census, k)
        assert where == k, f"β_o = {beta}: attractor {k} ({a.label}) is a transient: its long run went to {where}"
        assert a.label == verdict.label, (beta, k, a.reason, verdict.reason)
        if a.label in ("fixed_point", "periodic"):
            assert a.period == verdict.period, (beta, k)
    assert sum(a.fraction for a in census.attractors) + census.unsettled_fraction == pytest.approx(1.0)


@pytest.mark.slow
@pytest.mark.parametrize("model", [mf.presets.sigma(beta_o=70.0), mf.presets.random(n_features=2, seed=3, beta_o=2.0)],
                         ids=["sigma", "random-M2"])
def test_other_models_give_one_answer_too(model):
    census = mf.find_attractors(model, STARTS, STEPS, TRANSIENT, lyapunov=True, compute=mf.Compute(progress=False))
    assert census.attractors
    for k, a in enumerate(census.attractors):
        verdict, where = long_run_verdict(model, census, k)
        assert where == k and a.label == verdict.label, (k, a.reason, verdict.reason)
        if a.label in ("fixed_point", "periodic"):
            assert a.period == verdict.period


def test_a_spiral_onto_the_rest_cycle_is_the_rest_cycle():
    census = mf.find_attractors(mf.presets.paper(beta_o=1.24), STARTS, STEPS, TRANSIENT, lyapunov=True,
                                compute=mf.Compute(progress=False))
    assert [(a.label, a.period) for a in census.attractors] == [("fixed_point", 4)]
    assert census.attractors[0].fraction == 1.0
    assert census.attractors[0].lyapunov[0] < 0


@pytest.mark.parametrize("targets, expected", [
    ([0, 1, 2], [0, 1, 2]),         # every representative stayed
    ([0, 0, 2], [0, 0, 2]),         # group 1 was a transient onto group 0: merged
    ([0, -1, 2], [0, -1, 2]),       # group 1 went nowhere known: unsettled
    ([1, 0, 2], [-1, -1, 2]),       # groups 0 and 1 went into each other: neither stayed
    ([0, 2, 1], [0, -1, -1]),       # ... nor 1 and 2
    ([0, 2, 2], [0, 2, 2]),         # 1 went on to 2, which stayed
])
def test_a_group_is_an_attractor_only_if_its_representative_stays(targets, expected):
    assert _destinations(np.array(targets)).tolist() == expected


#: Tolerances made inside the test, a call deferred (a record checks its fields when it is made).
Made = functools.partial(functools.partial, mf.census.Tolerances)


@pytest.mark.parametrize("options", [
    dict(tolerances=Made(cycle_rtol=float("nan"))), dict(tolerances=Made(measure_rtol=1.5)),
    dict(tolerances=Made(cycle_rtol="tight")), dict(tolerances=Made(max_period=0)), dict(tolerances=(1e-4, 0.05)),
    dict(steps=100)])
def test_bad_options_are_refused_before_any_kernel_runs(monkeypatch, options):
    def no_kernel(*args, **kwargs):
        raise AssertionError("a kernel ran before the options were checked")

    monkeypatch.setattr("meanfield.systems.attention.simulate_batch", no_kernel)
    monkeypatch.setattr("meanfield.systems.attention.sample", no_kernel)

    def call(entry, *leading):
        entry(*leading, **(dict(starts=8, steps=2_000, transient=1_000)
                           | {k: v() if isinstance(v, functools.partial) else v for k, v in options.items()}))

    with pytest.raises(ConfigError):
        call(mf.find_attractors, mf.presets.paper(beta_o=1.3))
    with pytest.raises(ConfigError):
        call(mf.continue_attractors, mf.presets.paper(), {"beta_o": [1.2, 1.3]})
