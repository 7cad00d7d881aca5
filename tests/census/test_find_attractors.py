"""The attractor census of the paper model (meanfield.census) against what was measured independently: 512
uniform random windows, 150 000 steps, each end state classified one by one (the values the census must find):

* β_o = 1.27: a period-28 cycle for ~85 % of the starts, a period-56 cycle for ~15 %, a rare period 16;
* β_o = 2.8: four distinct period-24 cycles with ~25 % each.

Fractions are compared within binomial errors (a fraction f of n starts has standard error √(f(1−f)/n)); the
counts, labels and periods exactly."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.census.continuation import continue_attractors
from meanfield.census.find import find_attractors
from meanfield.errors import ConfigError
from meanfield.systems.starts import sample


@pytest.mark.slow
def test_four_period_24_cycles_at_beta_2_8_with_reproducible_basins():
    """Four distinct period-24 cycles, every start resolved; two independent ensembles (seeds 0 and 1) find the
    same four cycles with the same fractions within binomial error. (The basins are not equal: with 4096
    starts per seed they are 29.4/26.1/22.3/22.2 % and 29.5/26.2/23.2/21.0 %, σ ≈ 0.7 %; docs/attractors.md §5.)"""
    model = mf.presets.paper(beta_o=2.8)
    censuses = [find_attractors(model, mf.census.Starts(1024, seed=seed), 150_000, 145_000) for seed in (0, 1)]
    for census in censuses:
        assert census.unsettled_fraction == 0
        assert [(a.label, a.period) for a in census.attractors] == [("periodic", 24)] * 4
        points = [np.sort(a.points, axis=0) for a in census.attractors]
        # distinct cycles, not one cycle at four phases: their point sets differ by far more than rounding
        assert min(np.abs(p - q).max() for i, p in enumerate(points) for q in points[i + 1:]) > 1e-3
    first, second = ({tuple(np.sort(a.points, axis=0)[:, 0].round(6)): a.fraction for a in c.attractors}
                     for c in censuses)
    assert first.keys() == second.keys()
    # the difference of two independent fractions of n = 1024 has standard error √2·√(f(1−f)/n) ≤ 0.022
    assert all(abs(first[k] - second[k]) < 3 * 0.022 for k in first)


@pytest.mark.slow
def test_three_coexisting_cycles_at_beta_1_27():
    census = find_attractors(mf.presets.paper(beta_o=1.27), 512, 150_000, 145_000, compute=mf.Compute(progress=False))
    found = {a.period: a for a in census.attractors}
    assert sorted(found) == [16, 28, 56] and all(a.label == "periodic" for a in found.values())
    # measured independently: 85 % / 15 % / rare (within 3 binomial errors of n = 512: ±0.047 at f = 0.85)
    assert abs(found[28].fraction - 0.85) < 0.05 and abs(found[56].fraction - 0.15) < 0.05
    assert 0 < found[16].fraction < 0.03


def test_same_start_same_attractor_whatever_the_chunking():
    model = mf.presets.paper(beta_o=1.27)
    whole = find_attractors(model, 48, 30_000, 28_000, compute=mf.Compute(progress=False))
    pieces = find_attractors(model, 48, 30_000, 28_000, compute=mf.Compute(progress=False, chunk=7))
    assert [(a.label, a.period, a.fraction) for a in whole.attractors] == \
        [(a.label, a.period, a.fraction) for a in pieces.attractors]
    np.testing.assert_array_equal(whole.assignment, pieces.assignment)
    np.testing.assert_array_equal(whole.fingerprints.tails, pieces.fingerprints.tails)


def test_the_rest_state_is_a_fixed_point_of_the_forced_map():
    # below the Neimark–Sacker point (β_o = 1.2434) every start ends on the rest cycle: period L = 4 in the
    # attention rows, a fixed point of the 4-step map, as the classifier calls it
    census = find_attractors(mf.presets.paper(beta_o=1.0), 16, 20_000, 19_000, compute=mf.Compute(progress=False))
    assert [(a.label, a.period, a.fraction) for a in census.attractors] == [("fixed_point", 4, 1.0)]


def test_starts_are_counter_based():
    model = mf.presets.paper()
    all_ten = sample(model, 10, seed=3)
    last_four = sample(model, 4, seed=3, first=6)
    for a, b in zip(all_ten[6:], last_four):
        np.testing.assert_array_equal(a.att, b.att)
    assert not np.array_equal(sample(model, 1, seed=4)[0].att, all_ten[0].att)


def test_continuation_carries_ids_and_counts_only_fresh_starts():
    model = mf.presets.paper()
    run = continue_attractors(model, {"beta_o": [1.269, 1.27]}, 64, 60_000, 55_000, compute=mf.Compute(progress=False))
    fractions = run.fractions()
    # the fractions at each value are over the 64 fresh starts (the carried ones add none) and sum to 1 minus
    # the unsettled share
    for v, census in enumerate(run.censuses):
        assert np.nansum(fractions[v]) == pytest.approx(1 - np.mean(census.assignment[:64] < 0))
    # the period-28 cycle exists at both values and keeps its id
    ids28 = [ids[[a.period for a in c.attractors].index(28)] for c, ids in zip(run.censuses, run.ids)]
    assert ids28[0] == ids28[1]


@pytest.mark.parametrize("kwargs, key", [({"starts": 0}, "starts"), ({"steps": 1000, "transient": 900}, "transient"),
                                         ({"transients": 100}, "transients")])
def test_bad_arguments_are_refused(kwargs, key):
    args = dict(starts=8, steps=2000, transient=1000)
    args.update(kwargs)
    with pytest.raises(ConfigError, match=key):
        find_attractors(mf.presets.paper(), args.pop("starts"), args.pop("steps"), args.pop("transient"), **args)


def test_attractor_figure_colours_each_id_and_stacks_the_fractions(tmp_path):
    from meanfield.plots.attractors import attractors_figure
    run = continue_attractors(mf.presets.paper(), {"beta_o": [1.0, 1.27]}, 16, 30_000, 28_000)
    fig = attractors_figure(run.to_dataset())
    top, bottom = fig.axes
    # one stacked band per id plus the unsettled share, and at least one scatter per attractor found
    assert len(bottom.collections) == run.n_ids + 1
    assert len(top.collections) >= sum(len(c.attractors) for c in run.censuses)
    fig.savefig(tmp_path / "census.png")
    assert (tmp_path / "census.png").stat().st_size > 10_000


def test_carried_starts_run_ahead_of_the_chain_give_the_chain_of_one_call_per_value(monkeypatch):
    """The chain runs the starts on each value's fresh attractors at the next value in batched calls ahead of it
    (continuation.CARRIED_LANES starts per call); with one value per call it computes what a chain of one call per
    value computes. On this stretch of the quick census's grid the chain also adds attractors the fresh starts
    miss (fraction 0: an aperiodic set at 1.245, a period-156 cycle at 1.2675), so the values after them rerun
    their carried starts; every number must be the same bits either way."""
    import xarray as xr

    from meanfield.census import continuation
    from meanfield.census.continuation import continue_censuses

    model, values = mf.presets.paper(), np.linspace(0.0, 3.0, 401)[165:171]
    fresh = [find_attractors(model.replace(beta_o=float(v)), 64, 20_000, 19_000, lyapunov=True)
             for v in values]
    batched = continue_censuses(model, "beta_o", values, fresh, 20_000, 19_000, lyapunov=True)
    assert any(a.fraction == 0.0 for c in batched.censuses for a in c.attractors)
    monkeypatch.setattr(continuation, "CARRIED_LANES", 1)
    one_by_one = continue_censuses(model, "beta_o", values, fresh, 20_000, 19_000, lyapunov=True)
    xr.testing.assert_identical(batched.to_dataset(), one_by_one.to_dataset())
    for ours, theirs in zip(batched.censuses, one_by_one.censuses):     # what the next value starts from, too
        assert len(ours.attractors) == len(theirs.attractors)
        for a, b in zip(ours.attractors, theirs.attractors):
            for field in ("state.att", "state.pe", "lyapunov", "points", "summary"):
                x, y = a, b
                for part in field.split("."):
                    x, y = getattr(x, part), getattr(y, part)
                np.testing.assert_array_equal(x, y, err_msg=field)
