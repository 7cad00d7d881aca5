"""Sweeps with an ``[attractors]`` table (docs/attractors.md §6): the census of every point on the cluster, the
chained continuation stored per direction, the same numbers as the Python API, whatever the chunking or the
number of workers, and after an interruption at any moment."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.census import attractor_events
from meanfield.errors import ConfigError
from meanfield.sweeps.store.census import open_attractors

from .helpers import assert_same, interrupted_sweep, read_all
from .test_faults import _cli, _kill_after

VALUES = [1.0, 1.269, 1.27, 1.3]
STEPS, TRANSIENT, STARTS = 30_000, 28_000, 16

CENSUS = f"""
name = "census"
steps = {STEPS}
transient = {TRANSIENT}
chunk = {{chunk}}

[model]
preset = "paper"

[grid]
beta_o = {VALUES}

[attractors]
starts = {STARTS}
direction = "both"
"""


def _groups(path) -> dict:
    return {d: open_attractors(path, d) for d in ("up", "down")}


def _assert_same_groups(a: dict, b: dict):
    for direction in a:
        for name in a[direction].data_vars:
            np.testing.assert_array_equal(a[direction][name].values, b[direction][name].values,
                                          err_msg=f"{direction}/{name}")


@pytest.fixture(scope="module")
def reference_census(tmp_path_factory, client):
    path = tmp_path_factory.mktemp("census") / "reference.h5"
    mf.sweep(CENSUS.format(chunk=3), path, place=mf.Place(client=client), progress=False)
    return path


def test_the_sweep_stores_what_the_python_api_computes(reference_census):
    model = mf.presets.paper()
    for direction, order in (("up", 1), ("down", -1)):
        api = mf.continue_attractors(model, {"beta_o": VALUES[::order]}, STARTS, STEPS, TRANSIENT,
                                     compute=mf.Compute(progress=False)).to_dataset(max_period=256)
        stored = open_attractors(reference_census, direction)
        assert stored.attrs["direction"] == direction
        for name in api.data_vars:
            np.testing.assert_array_equal(stored[name].values, api[name].values, err_msg=f"{direction}/{name}")
    # what was measured independently (tests/census): the rest state below the Neimark-Sacker point, the period-28
    # cycle appearing by 1.269 and the period-16 cycle coexisting at 1.27
    events = attractor_events(open_attractors(reference_census, "up"))
    assert (1.269, "vanishes", "fixed_point", 4) in [(v, w, label, p) for v, _, w, label, p in events]
    up = open_attractors(reference_census, "up")
    assert 28 in up["period"].sel(beta_o=1.269).values and 16 in up["period"].sel(beta_o=1.27).values


def test_nothing_depends_on_the_chunking(reference_census, client, tmp_path):
    other = tmp_path / "chunk1.h5"
    mf.sweep(CENSUS.format(chunk=1), other, place=mf.Place(client=client), progress=False)
    assert_same(read_all(reference_census), read_all(other))
    _assert_same_groups(_groups(reference_census), _groups(other))


def test_stopped_between_the_stages_the_resume_chains_the_stored_censuses(reference_census, client, tmp_path):
    out = tmp_path / "out.h5"
    text = CENSUS.format(chunk=2)
    interrupted_sweep(text, out, after=len(VALUES), place=mf.Place(client=client))    # every point stored, no chain yet
    with pytest.raises(KeyError, match="no attractor census"):
        open_attractors(out, "up")
    mf.sweep(text, out, place=mf.Place(client=client), progress=False)
    assert_same(read_all(reference_census), read_all(out))
    _assert_same_groups(_groups(reference_census), _groups(out))


def test_every_line_of_a_2d_census_is_its_own_continuation(client, tmp_path):
    # the line epsilon = 0.03 of a 2-D census equals the census of that line alone (a grid of one line), ids and all
    def census(epsilons, name):
        text = CENSUS.replace(f"beta_o = {VALUES}", f"epsilon = {epsilons}\nbeta_o = [1.0, 1.27, 1.3]").replace(
            f"steps = {STEPS}\ntransient = {TRANSIENT}", "steps = 6000\ntransient = 5000").format(chunk=2)
        mf.sweep(text + 'axis = "beta_o"\n', tmp_path / name, place=mf.Place(client=client), progress=False)
        return {d: open_attractors(tmp_path / name, d) for d in ("up", "down")}
    grid, alone = census([0.02, 0.03], "grid.h5"), census([0.03], "alone.h5")
    for direction in ("up", "down"):
        assert grid[direction]["fraction"].dims[:2] == ("epsilon", "beta_o")
        one = alone[direction].isel(epsilon=0)
        ids = slice(0, one.sizes["attractor"])
        line = grid[direction].sel(epsilon=0.03).isel(attractor=ids, destination=ids)
        for name in one.data_vars:
            np.testing.assert_array_equal(line[name].values, one[name].values, err_msg=f"{direction}/{name}")
        assert (grid[direction].sel(epsilon=0.03)["label"].values[:, one.sizes["attractor"]:] == -1).all()


@pytest.mark.slow
@pytest.mark.system
def test_sigkill_at_random_moments_then_resume_is_identical(external_cluster, client, reference_census, write_run,
                                                            tmp_path):
    out = tmp_path / "out.h5"
    run_file = write_run(CENSUS.format(chunk=1))
    rng = np.random.default_rng(21)
    for delay in rng.uniform(0.0, 3.0, size=4):             # from creation to the chained stage
        _kill_after(_cli(run_file, out, external_cluster), f"{out}.lock", delay)
    mf.sweep(CENSUS.format(chunk=1), out, place=mf.Place(client=client), progress=False)
    assert_same(read_all(reference_census), read_all(out))
    _assert_same_groups(_groups(reference_census), _groups(out))


@pytest.mark.parametrize("table, key", [
    ("starts = 0", "attractors.starts"), ("direction = 'down'", "attractors.direction"),
    ("axis = 'gamma'", "attractors.axis"), ("sampler = 'gaussian'", "attractors.sampler"),
    ("cycle_rtol = 1.5", "attractors.cycle_rtol"), ("max_period = 2000", "attractors.max_period"),
    ("colour = 'red'", "attractors: unknown key"), ("max_attractors = 0", "attractors.max_attractors"),
    ("transients = 100", "attractors.transients = 100"), ("transients = -1", "attractors.transients")])
def test_bad_attractors_tables_are_refused_naming_the_key(table, key, tmp_path):
    text = CENSUS.replace(f'starts = {STARTS}\ndirection = "both"', table).format(chunk=1)
    out = tmp_path / "never.h5"
    with pytest.raises(ConfigError, match=key):
        mf.sweep(text, out, progress=False)
    assert not out.exists()


def test_the_census_runs_the_mean_field_on_the_cpu(tmp_path):
    for extra, key in (("backend = 'cuda'\n", "backend"),):
        with pytest.raises(ConfigError, match=key):
            mf.sweep(extra + CENSUS.format(chunk=1), tmp_path / "never.h5", progress=False)



def test_the_chaotic_transient_is_stored_as_the_api_reports_it(client, tmp_path):
    """Runs of 6 000 steps: at β_o = 1.269 a start is still on a chaotic transient at the end of its run (the
    census gives it to the period-28 cycle), at 1.3 the transient outlasts the census (no transient: a chaotic
    set). Followed on, the stored share and escape rate are those the API reports."""
    steps, transient = 6000, 5400
    text = CENSUS.format(chunk=1).replace("beta_o = " + str(VALUES), "beta_o = [1.269, 1.3]").replace(
        'direction = "both"', f"transients = {10 * steps}").replace(f"steps = {STEPS}", f"steps = {steps}").replace(
        f"transient = {TRANSIENT}", f"transient = {transient}")
    mf.sweep(text, tmp_path / "t.h5", place=mf.Place(client=client), progress=False)
    stored = read_all(tmp_path / "t.h5")
    shares = []
    for p, beta in enumerate((1.269, 1.3)):
        census = mf.find_attractors(mf.presets.paper(beta_o=beta), STARTS, steps, transient, transients=10 * steps)
        share, escape = (0.0, None) if census.transient is None else (census.transient.share, census.transient.escape)
        shares.append(share)
        assert stored["census_transient_share"][p] == share
        expected = [np.nan, np.nan] if escape is None else [escape.rate, escape.stderr]
        np.testing.assert_array_equal([stored["census_escape_rate"][p], stored["census_escape_rate_stderr"][p]],
                                      expected)
    assert shares[0] > 0 and shares[1] == 0
