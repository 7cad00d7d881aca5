"""A run file's ``[curves]`` table (meanfield/sweeps/execute/curves.py, docs/bifurcations.md §12): once the points are
done the sweep continues the curves on its cluster and stores them in the file as a Dataset xarray reads — the
curves ``mf.bifurcation_curve`` gives and a curve study stores; killed while it computes them, the sweep resumes
to the same file; a wrong table is one line before anything runs, and nothing is written."""
import json
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest
import xarray
from dask.distributed import Client

import meanfield as mf
from meanfield.errors import ConfigError
from meanfield.studies.curve_study import run_curve_study
from meanfield.sweeps.store.curves import ROWS_GROUP, open_curves

from ..cli.helpers import cli
from .helpers import assert_same, read_all

#: Two pieces of the rest cycle's Neimark–Sacker curve over a two-point sweep (docs/bifurcations.md §10).
RUN = """
name = "with_curves"
steps = 2000
transient = 1000
chunk = 1

[model]
preset = "paper"

[grid]
beta_o = [1.24, 1.25]

[curves]
parameters = ["beta_o", "beta_att"]
interval = [2.0, 2.4]

[[curves.curve]]
name = "wide"
locate = [1.24, 1.245]
kind = "neimark_sacker"

[[curves.curve]]
name = "narrow"
locate = [1.24, 1.245]
interval = [2.1, 2.3]
"""


@pytest.mark.integration   # an in-process Dask cluster
def test_a_sweep_stores_the_curves_mf_bifurcation_curve_gives(tmp_path):
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        mf.sweep(RUN, tmp_path / "out.h5", place=mf.Place(client=client), progress=False)
    stored = open_curves(tmp_path / "out.h5")
    with xarray.open_dataset(tmp_path / "out.h5", group="curves", engine="h5netcdf") as ds:   # plain xarray too
        xarray.testing.assert_identical(ds.load(), stored)
    model = mf.presets.paper()
    point, = mf.bifurcations(model, "beta_o", (1.24, 1.245))
    assert stored.curve.values.tolist() == ["wide", "narrow"]
    for name, interval in (("wide", (2.0, 2.4)), ("narrow", (2.1, 2.3))):
        curve = mf.bifurcation_curve(model.replace(beta_o=point.value), point, "beta_att", interval)
        k = int(stored.length.sel(curve=name))
        assert np.array_equal(stored["values"].sel(curve=name).values[:k], curve.values)
        assert stored.criticality.sel(curve=name).values[:k].tolist() == curve.criticality
    # the same Dataset as a curve study of the same keys writes to its own file
    study = mf.load_run(RUN).curves
    alone = run_curve_study(study, str(tmp_path / "study.h5"), progress=False)
    for name in alone.data_vars:
        assert np.array_equal(alone[name].values, stored[name].values), name
    # the points are the sweep's as without the table
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        mf.sweep(RUN.split("[curves]")[0], tmp_path / "points.h5", place=mf.Place(client=client), progress=False)
    assert_same(read_all(tmp_path / "out.h5"), read_all(tmp_path / "points.h5"))
    # drawn by `meanfield plot curves`; a sweep without curves is one line, exit 2
    assert cli(["-q", "plot", "curves", tmp_path / "out.h5", "-o", tmp_path / "curves.png"]) == 0
    assert (tmp_path / "curves.png").stat().st_size > 10_000
    assert cli(["-q", "plot", "curves", tmp_path / "points.h5", "-o", tmp_path / "none.png"]) == 2
    assert not (tmp_path / "none.png").exists()


@pytest.mark.parametrize("table, key", [
    ('parameters = ["beta_o"]', "curves.parameters"), ('parameters = ["beta_o", "speed"]', "curves.parameters"),
    ("interval = [2.5, 2.0]", "curves.interval"), ("interval = [3.0, 4.0]", "curves.interval"),
    ("colour = 1", "curves.colour"),
    ('[[curves.curve]]\nname = "wide"\nlocate = [1.24, 1.245]', "two curves have it"),
    ('[[curves.curve]]\nname = "x"\nlocate = [1.24, 1.245]\nkind = "hopf"', "curves.curve\\[2\\].kind"),
    ('[[curves.tongue]]\nname = "t"\nsettle = [1.25, 0]', "curves.tongue\\[0\\].settle"),
    ('[[curves.curve]]\nname = "x"', "curves.curve\\[2\\].locate is missing")])
def test_bad_curves_tables_are_refused_naming_the_key(table, key, tmp_path, monkeypatch):
    import meanfield.sweeps.execute.curves as stage
    monkeypatch.setattr(stage, "compute_curve", lambda *a: pytest.fail("a curve was computed"))
    head, rest = RUN.split('parameters = ["beta_o", "beta_att"]\ninterval = [2.0, 2.4]\n')
    own = table.split(" =")[0]
    keys = [line for line in ('parameters = ["beta_o", "beta_att"]', "interval = [2.0, 2.4]")
            if line.split(" =")[0] != own]
    text = head + "\n".join(keys + ([table] if not table.startswith("[[") else [])) + "\n" + rest + (
        "\n" + table + "\n" if table.startswith("[[") else "")
    out = tmp_path / "never.h5"
    with pytest.raises(ConfigError, match=key):
        mf.sweep(text, out, progress=False)
    assert not out.exists()


def test_curves_with_a_finite_network_or_a_seed_axis_are_refused():
    finite = RUN.replace("[curves]", "[finite]\nn_bits = [990]\nreplicas = 2\n\n[curves]")
    seeds = RUN.replace('preset = "paper"', 'preset = "random"').replace("beta_o = [1.24, 1.25]", "seed = [1, 2]")
    for text, words in ((finite, "not allowed with \\[finite\\]"), (seeds, "not allowed with a seed grid axis")):
        with pytest.raises(ConfigError, match=words):
            mf.load_run(text)


def stored_curves(path) -> int:
    """Curves whose rows a sweep file another process may be writing holds (0 while it cannot be read)."""
    try:
        with h5py.File(path, "r", locking=False) as f:
            return len(f[ROWS_GROUP].attrs) if ROWS_GROUP in f else 0
    except (OSError, KeyError):
        return 0


@pytest.mark.slow     # a sweep process killed, then resumed; a tongue traced twice: ~30 s
@pytest.mark.system   # a sweep in a subprocess on the external cluster
def test_a_sweep_killed_during_its_curves_resumes_to_the_same_file(external_cluster, client, write_run, tmp_path):
    text = RUN.replace("interval = [2.0, 2.4]", "interval = [2.0, 5.2]") + \
        '\n[[curves.tongue]]\nname = "t14"\nsettle = [1.2502562, 200000]\n'
    run_file, out = write_run(text), tmp_path / "out.h5"
    proc = subprocess.Popen([sys.executable, "-m", "meanfield", "sweep", run_file, "-o", str(out), "--scheduler",
                             external_cluster, "--no-progress"], stderr=subprocess.PIPE, text=True)
    # until the first curve is stored (the tongue takes seconds more); a hung child is stopped by pytest-timeout
    while proc.poll() is None and stored_curves(out) < 1:
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    with h5py.File(out, "r") as f:
        held = sorted(f[ROWS_GROUP].attrs)
        assert "curves" not in f and 1 <= len(held) < 4, "the kill came after the curves were done: it tests nothing"
        assert all(json.loads(f[ROWS_GROUP].attrs[n])["name"] == n for n in held)
    mf.sweep(text, out, place=mf.Place(client=client), progress=False)
    mf.sweep(text, tmp_path / "whole.h5", place=mf.Place(client=client), progress=False)
    resumed, whole = open_curves(out), open_curves(tmp_path / "whole.h5")
    xarray.testing.assert_identical(resumed, whole)
    assert resumed.curve.values.tolist() == ["wide", "narrow", "t14.lower", "t14.upper"]
    assert resumed.special_kind.values.tolist() == ["resonance_1:4", "tip"]
    assert_same(read_all(out), read_all(tmp_path / "whole.h5"))
