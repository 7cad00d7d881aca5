"""Files written before the rename of "unresolved" starts to "unsettled" (meanfield.sweeps.store.schema.RENAMED,
docs/storage.md §7): the fresh census's ``census_unresolved``, the chained census's ``unresolved`` and
``tipping_unresolved``, the basin map's attribute ``unresolved``. A small sweep file is written with today's
layout and then given the old names exactly as the package wrote them before (the datasets, the names the
checksums cover and that coordinate's crc32, the attribute); every reader gives them under the new names, and a
sweep resumed into the file renames them in it. Nothing is computed: the values are set by hand."""
import json

import h5py
import numpy as np
import xarray as xr

import meanfield as mf
from meanfield.census.basins import Plane
from meanfield.model.state import State
from meanfield.sweeps.store import datasets, open_run, open_sweep, read_points, read_sweep, reading, write_points
from meanfield.sweeps.store.basins import create_basins, finish_basins, open_basins, write_rows
from meanfield.sweeps.store.census import open_attractors, write_attractors
from meanfield.sweeps.store.schema import RENAMED, current_name, renamed, stored_name
from meanfield.sweeps.store.sweep import create_sweep, upgrade_names
from meanfield.sweeps.store.verify import CHECKED, COORDINATE_CRC, value_crc, verify_file

RUN = """
name = "old"
steps = 1000
transient = 900

[model]
preset = "paper"

[grid]
beta_o = [2.8]

[attractors]
starts = 4
max_period = 32

[basins]
resolution = 3
steps = 100
transient = 36
"""
#: What the fresh census of the one point left unsettled, the chained census per value, the basin map's ids.
FRESH, CHAINED = 0.25, 0.125
IDS = np.array([[0, -1, 0], [0, 0, -1], [0, 0, 0]])


def _new_file(path):
    """A sweep file of RUN with today's names: one point done (a census of one period-24 attractor holding 3 of
    4 starts), its chained census and its basin map."""
    run = mf.load_run(RUN)
    with create_sweep(path, run) as f:
        arrays = {name: f[name][...] for name in f if isinstance(f[name], h5py.Dataset)
                  and f[name].shape[:1] == (1,) and name not in ("done", "checksum", "beta_o")}
        arrays["census_unsettled"][0] = FRESH
        arrays["census_assignment"][0] = [0, 0, -1, 0]
        arrays["census_period"][0, 0], arrays["census_label"][0, 0] = 24, 1
        arrays["census_fraction"][0, 0] = 0.75
        write_points(f, run, [0], arrays)
        chain = xr.Dataset({"fraction": (("beta_o", "attractor"), [[0.75]]), "unsettled": (("beta_o",), [CHAINED]),
                            "tipping_unsettled": (("beta_o", "attractor"), [[0.5]])},
                           coords={"beta_o": [2.8], "attractor": [0]})
        write_attractors(f, "up", chain)
        window = np.zeros((run.model.context, run.model.n_features))
        plane = Plane(origin=State(att=window, pe=np.zeros((run.model.context, 0))),
                      directions=np.zeros((2,) + window.shape), u=np.linspace(-1, 1, 3), v=np.linspace(-1, 1, 3))
        create_basins(f, plane, {name: f[name][0] for name in ("census_period", "census_label", "census_fraction")})
        write_rows(f, 0, IDS)
        finish_basins(f)
    return run


def _written_before_the_rename(path):
    """Give the file the names the package wrote before the rename (the inverse of ``upgrade_names``)."""
    back = {new: old for old, new in RENAMED.items()}
    with h5py.File(path, "r+") as f:
        f.move("census_unsettled", "census_unresolved")
        names = [n.decode() if isinstance(n, bytes) else n for n in f[CHECKED][...]]
        names = np.array([back.get(n, n) for n in names], dtype=h5py.string_dtype())
        f[CHECKED][...] = names
        crcs = json.loads(f.attrs[COORDINATE_CRC])
        crcs[CHECKED] = value_crc(names)
        f.attrs[COORDINATE_CRC] = json.dumps(crcs)
        for name in ("unsettled", "tipping_unsettled"):
            f["attractors/up"].move(name, back[name])
        f["basins"].attrs["unresolved"] = f["basins"].attrs["unsettled"]
        del f["basins"].attrs["unsettled"]


def _old_file(tmp_path):
    path = tmp_path / "old.h5"
    run = _new_file(path)
    _written_before_the_rename(path)
    with h5py.File(path, "r") as f:                      # the file is what the package wrote before
        assert "census_unresolved" in f and "census_unsettled" not in f
        assert "unresolved" in f["attractors/up"] and "unresolved" in f["basins"].attrs
    return path, run


def test_the_rename_table_maps_the_old_names_and_nothing_else():
    assert RENAMED == {"census_unresolved": "census_unsettled", "unresolved": "unsettled",
                       "tipping_unresolved": "tipping_unsettled"}
    assert current_name("census_unresolved") == "census_unsettled" and current_name("fraction") == "fraction"
    assert stored_name({"census_unresolved"}, "census_unsettled") == "census_unresolved"
    assert stored_name({"census_unsettled", "census_unresolved"}, "census_unsettled") == "census_unsettled"
    assert stored_name(set(), "census_unsettled") == "census_unsettled"
    current = xr.Dataset({"unsettled": ((), 0.5)}, attrs={"unsettled": 0.5})
    assert renamed(current) is current


def test_an_old_file_reads_under_the_new_names(tmp_path):
    path, _ = _old_file(tmp_path)
    assert verify_file(path)["datasets"].count("census_unresolved") == 1       # the old file is intact as it is
    with open_run(path) as ds:
        assert "census_unresolved" not in ds and float(ds["census_unsettled"][0]) == FRESH
    assert read_sweep(path, ["census_unsettled"]).arrays["census_unsettled"].tolist() == [FRESH]
    with reading(path) as f:
        assert read_points(f, ["census_unsettled", "census_count"], [0])["census_unsettled"].tolist() == [FRESH]
    assert "census_unsettled" in datasets(path) and "census_unresolved" not in datasets(path)
    chain = open_attractors(path, "up")
    assert float(chain["unsettled"][0]) == CHAINED and float(chain["tipping_unsettled"][0, 0]) == 0.5
    assert "unresolved" not in chain and "tipping_unresolved" not in chain
    basins = open_basins(path)
    assert basins.attrs["unsettled"] == np.mean(IDS < 0) and "unresolved" not in basins.attrs


def test_a_sweep_resumed_into_an_old_file_renames_its_datasets(tmp_path):
    path, run = _old_file(tmp_path)
    with open_sweep(path, run) as f:                     # what `meanfield sweep` does to resume
        assert "census_unsettled" in f and "census_unresolved" not in f
        assert "census_unsettled" in [n.decode() if isinstance(n, bytes) else n for n in f[CHECKED][...]]
        assert set(f["attractors/up"]) >= {"unsettled", "tipping_unsettled"} and "unresolved" not in f["attractors/up"]
        assert f["basins"].attrs["unsettled"] == np.mean(IDS < 0) and "unresolved" not in f["basins"].attrs
        upgrade_names(f)                                 # a second time: nothing left to rename
    assert "census_unsettled" in verify_file(path)["datasets"]        # checksums and coordinate crc32 still hold
    with open_run(path) as ds:
        assert float(ds["census_unsettled"][0]) == FRESH
