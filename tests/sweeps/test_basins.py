"""Sweeps with a ``[basins]`` table (docs/basins.md §7): the basin map of the paper model at β_o = 2.8 on the
cluster, the same ids whatever the chunking, as the Python API, as the census's own assignment rules, and after
an interruption; bad tables refused before anything runs."""
import h5py
import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis.fingerprint import fingerprint
from meanfield.analysis.grouping import assign_to_attractors
from meanfield.census.basins import basin_map
from meanfield.errors import ConfigError
from meanfield.simulation import simulate_batch
from meanfield.sweeps.execute.basins import known_attractors
from meanfield.sweeps.store.basins import open_basins

from .helpers import read_all

SIDE = 24
BASINS = f"""
name = "basins"
steps = 6000
transient = 5000
chunk = {{chunk}}

[model]
preset = "paper"

[grid]
beta_o = [2.8]

[attractors]
starts = 16
max_period = 32

[basins]
resolution = {SIDE}
steps = 1000
transient = 936
"""


@pytest.fixture(scope="module")
def reference_map(tmp_path_factory, client):
    path = tmp_path_factory.mktemp("basins") / "reference.h5"
    mf.sweep(BASINS.format(chunk=5), path, place=mf.Place(client=client), progress=False)
    return path


def test_the_map_holds_the_census_cycles_and_the_api_draws_the_same(reference_map):
    ds = open_basins(reference_map)
    assert ds.attrs["complete"] and ds["id"].shape == (SIDE, SIDE) and np.all(ds["row_done"].values == 1)
    # docs/attractors.md §5: four period-24 cycles at beta_o = 2.8, every start resolved
    assert list(ds["period"].values) == [24, 24, 24, 24] and ds.attrs["unsettled"] == 0.0
    assert set(np.unique(ds["id"].values)) == {0, 1, 2, 3}
    np.testing.assert_allclose(ds["map_fraction"].values, [np.mean(ds["id"].values == k) for k in range(4)])
    # the plane through the checkpoint along features 0, 1 (docs/basins.md §7): pixel (i, j) = origin + u_i e0 + v_j e1
    model = mf.presets.paper(beta_o=2.8)
    np.testing.assert_array_equal(ds["origin"].values, model.checkpoint.att)
    assert ds["u"].values[0] == -1.0 and ds["v"].values[-1] == 1.0
    plane = mf.census.basins.plane(model, resolution=SIDE)
    corner = plane.starts(range(1)).att[SIDE - 1]
    np.testing.assert_array_equal(corner, model.checkpoint.att + np.array([-1.0, 1.0, 0.0]))
    # the API, in one process and one kernel call, from the stored census
    census = {name: values[0] for name, values in read_all(reference_map).items() if name.startswith("census_")}
    known = known_attractors(census)
    api = basin_map(model, known, plane, 1000, 936, tolerances=mf.census.Tolerances(max_period=32),
                    compute=mf.Compute(chunk=SIDE))
    np.testing.assert_array_equal(api, ds["id"].values)
    # the census's own rules (fingerprint + assign_to_attractors, no cycle shortcut) give the same ids
    batch = simulate_batch(model, 1000, 936, parameters={"beta_o": np.full(SIDE * SIDE, 2.8)},
                           start=plane.starts(range(SIDE)), record=("att",), compute=mf.Compute(progress=False))
    rules = assign_to_attractors(fingerprint(batch.records["att"], max_period=32), known.period, known.scale,
                                 known.quantiles, known.points)
    np.testing.assert_array_equal(rules.reshape(SIDE, SIDE), ds["id"].values)


def test_nothing_depends_on_the_chunking(reference_map, client, tmp_path):
    other = tmp_path / "chunk16.h5"
    mf.sweep(BASINS.format(chunk=16), other, place=mf.Place(client=client), progress=False)
    a, b = open_basins(reference_map), open_basins(other)
    for name in a.data_vars:
        np.testing.assert_array_equal(a[name].values, b[name].values, err_msg=name)


def test_rows_lost_before_the_end_are_computed_again_identically(reference_map, client, tmp_path):
    damaged = tmp_path / "resumed.h5"
    damaged.write_bytes(reference_map.read_bytes())
    with h5py.File(damaged, "r+") as f:                       # as if stopped after some blocks
        f["basins/id"][7:19] = -7
        f["basins/row_done"][7:19] = 0
        f["basins"].attrs["complete"] = False
    mf.sweep(BASINS.format(chunk=5), damaged, place=mf.Place(client=client), progress=False)
    np.testing.assert_array_equal(open_basins(damaged)["id"].values, open_basins(reference_map)["id"].values)
    assert open_basins(damaged).attrs["complete"]


def test_the_plane_of_two_windows_through_a_third_survives_the_stored_run_file():
    import json

    from meanfield.sweeps.config.runfile import stored_run
    w0, w1, origin = ([[0.1, 0.2, 0.3], [0, 0, 0], [0, 0, 0], [1, 1, 1]], [[0.5, 0.2, 0.3], [0, 0, 0], [0, 0, 0],
                      [1, 1, 1]], [[0, 0, 0.5], [0, 0, 0], [0, 0, 0], [0, 0, 0]])
    table = f"resolution = [8, 6]\nwindows = [{w0}, {w1}]\norigin = {origin}\nu = [0.0, 1.0]"
    run = mf.load_run(BASINS.format(chunk=1).replace(f"resolution = {SIDE}", table))
    assert stored_run(json.loads(run.to_json())).result_key() == run.result_key()     # a resumed file matches
    plane = run.basins.plane(run.model)
    # pixel (i, j) = origin + u_i (W0 - origin) + v_j (W1 - origin): (1, -1) is W0 - W1 + origin
    np.testing.assert_allclose(plane.starts(range(7, 8)).att[0], np.subtract(w0, w1) + origin, atol=1e-15)
    np.testing.assert_allclose(plane.starts(range(7, 8)).att[5], w0 + np.subtract(w1, origin), atol=1e-15)


@pytest.mark.parametrize("table, key", [
    ("resolution = 1", "basins.resolution"), ("resolution = [32, 32, 32]", "basins.resolution"),
    ("features = [1, 1]", "basins.features"), ("features = [0, 3]", "basins.features"),
    ("u = [1.0, -1.0]", "basins.u"), ("v = [0.0, 'a']", "basins.v"),
    ("windows = [[0.0]]", "basins.windows"), ("origin = 'prompt'", "basins.origin"),
    ("origin = [[0.0, 0.0, 0.0]]", "basins.origin"), ("transient = 990", "basins.transient"),
    ("colour = 'red'", "basins: unknown key"), ("features = [0, 1]\nwindows = [[0.0]]", "basins.windows")])
def test_bad_basins_tables_are_refused_naming_the_key(table, key, tmp_path):
    body = f"resolution = {SIDE}\nsteps = 1000\ntransient = 936"
    kept = [line for line in body.split("\n") if line.split(" =")[0] not in table]
    text = BASINS.format(chunk=1).replace(body, "\n".join([table, *kept]))
    out = tmp_path / "never.h5"
    with pytest.raises(ConfigError, match=key):
        mf.sweep(text, out, progress=False)
    assert not out.exists()


def test_a_map_needs_a_census_at_one_point(tmp_path):
    without = BASINS.format(chunk=1).replace("[attractors]\nstarts = 16\nmax_period = 32\n", "")
    two = BASINS.format(chunk=1).replace("beta_o = [2.8]", "beta_o = [2.7, 2.8]")
    for text, key in ((without, "needs an \\[attractors\\] table"), (two, "one parameter point")):
        with pytest.raises(ConfigError, match=key):
            mf.sweep(text, tmp_path / "never.h5", progress=False)


@pytest.mark.system
def test_the_dry_run_estimates_the_map(tmp_path, capsys):
    from meanfield.cli import main
    from meanfield.sweeps.execute.estimate import basin_seconds
    without = mf.load_run(BASINS.format(chunk=1).split("[basins]")[0])
    assert basin_seconds(without, 2) == 0.0                 # no map, nothing to estimate
    (tmp_path / "run.toml").write_text(BASINS.format(chunk=1))
    assert main(["sweep", str(tmp_path / "run.toml"), "-o", str(tmp_path / "out.h5"), "--dry-run"]) == 0
    assert "then the basin map" in capsys.readouterr().out and not (tmp_path / "out.h5").exists()


def test_a_map_lost_from_the_file_is_written_again_from_the_journal(reference_map, client, tmp_path):
    from meanfield.sweeps.store.journal import Journal, journal_path, read_journal
    blocks = dict(read_journal(journal_path(reference_map)).basin_rows())
    assert sorted(blocks) == list(range(0, SIDE, 5))                  # every block of 5 rows was journaled
    np.testing.assert_array_equal(np.concatenate([blocks[k] for k in sorted(blocks)]),
                                  open_basins(reference_map)["id"].values)
    # a file whose map is gone (as one rebuilt from its journal) and a journal holding rows 0-4 marked 3: those
    # rows come from the journal, the others are computed again
    copy, run = tmp_path / "copy.h5", mf.load_run(BASINS.format(chunk=5))
    copy.write_bytes(reference_map.read_bytes())
    with h5py.File(copy, "r+") as f:
        del f["basins"]
    journal = Journal.start(journal_path(copy), run, [])
    journal.append_rows(0, np.full((5, SIDE), 3, dtype=np.int32))
    journal.close()
    mf.sweep(run, copy, place=mf.Place(client=client), progress=False)
    ids = open_basins(copy)["id"].values
    assert np.all(ids[:5] == 3)
    np.testing.assert_array_equal(ids[5:], open_basins(reference_map)["id"].values[5:])
