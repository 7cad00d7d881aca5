"""``meanfield onset``: a study file in, an HDF5 file xarray reads, the table and the figure out; an interrupted
study resumes from its journal; wrong study files are one line, exit 2, nothing written."""
import json

import numpy as np
import pytest
import xarray

from .helpers import balanced_quotes, cli, snapshot

STUDY = """
name = "tiny"
features = [3, 8]
contexts = [4]
seeds = 2
semantic_bits = 64
interval = [0.25, 6.0]
"""


def test_a_study_writes_its_file_table_and_figure(workdir, capsys):
    (workdir / "tiny.toml").write_text(STUDY)
    assert cli(["onset", "tiny.toml", "-o", "tiny.h5", "--plot", "tiny.png"]) == 0
    out = capsys.readouterr().out
    with xarray.open_dataset(workdir / "tiny.h5", engine="h5netcdf") as ds:
        assert dict(ds.sizes) == {"features": 2, "contexts": 1, "seed": 2}
        assert set(ds.kind.values.ravel()) <= {"neimark_sacker", "flip", "fold", "branch_point", "none"}
        found = np.isfinite(ds.beta_c.values)
        assert np.all((ds.beta_c.values[found] > 0.25) & (ds.beta_c.values[found] < 6.0))
        assert np.array_equal(found, ds.kind.values != "none")
        # a crossover comes before the onset, with a margin in (0, 1); a Neimark–Sacker onset has its rotation number
        crossed = np.isfinite(ds.crossover.values)
        assert np.all((ds.closest_approach.values[crossed] > 0) & (ds.closest_approach.values[crossed] < 1))
        assert not np.any(ds.crossover.values[crossed & found] >= ds.beta_c.values[crossed & found])
        assert np.array_equal(np.isfinite(ds.rotation_number.values), ds.kind.values == "neimark_sacker")
        # every variable says what it is; the file says what made it
        assert all(ds[name].attrs.get("long_name") for name in ds.data_vars)
        assert json.loads(ds.attrs["provenance"])[0]["action"] == "onset"
        rows = {int(m): ds.beta_c.sel(features=m, contexts=4).values for m in ds.features.values}
    assert "| M | L = 4 |" in out and "wrote tiny.h5" in out and (workdir / "tiny.png").stat().st_size > 0
    for m, beta in rows.items():
        line = next(line for line in out.splitlines() if line.startswith(f"| {m} |"))
        if np.isfinite(beta).any():
            assert f"{np.nanmean(beta):.3f}" in line
    assert not (workdir / "tiny.h5.partial.jsonl").exists()


def test_an_interrupted_study_resumes_from_its_journal(workdir):
    # a journal with one finished task (a value no search gives) and a line cut by a kill: the task is adopted,
    # the cut line ignored, the rest computed
    (workdir / "tiny.toml").write_text(STUDY)
    row = {"features": 3, "contexts": 4, "seed": 1, "beta_c": 5.5, "kind": "fold", "rotation_number": float("nan"),
           "crossover": 5.0, "closest_approach": 1e-3, "mirror_birth": 5.1, "mirror_modulus": 0.9, "points": 40}
    (workdir / "tiny.h5.partial.jsonl").write_text(json.dumps(row) + "\n" + '{"features": 8, "conte')
    assert cli(["-q", "onset", "tiny.toml", "-o", "tiny.h5"]) == 0
    with xarray.open_dataset(workdir / "tiny.h5", engine="h5netcdf") as ds:
        assert ds.beta_c.sel(features=3, contexts=4, seed=1).item() == 5.5
        assert ds.kind.sel(features=8, contexts=4).values.tolist() != ["", ""]
    assert not (workdir / "tiny.h5.partial.jsonl").exists()


WRONG = [
    ("features = [0, 3]", "features"),
    ("features = 3", "features"),
    ("contexts = [1]", "contexts"),
    ("seeds = 0", "seeds"),
    ("semantic_bits = true", "semantic_bits"),
    ("interval = [2.0, 1.0]", "interval"),
    ("resolution = 1e-6", "resolution"),
    ("bogus = 1", "bogus"),
    ("features = [3", "TOML"),
]


@pytest.mark.parametrize("change, word", WRONG, ids=[w for _, w in WRONG])
def test_a_wrong_study_file_is_one_line_exit_2_and_writes_nothing(workdir, capsys, change, word):
    key = change.split("=")[0].strip()
    lines = [line for line in STUDY.splitlines() if not line.startswith(key + " ")]
    (workdir / "bad.toml").write_text("\n".join(lines + [change]) + "\n")
    before = snapshot(workdir)
    assert cli(["onset", "bad.toml", "-o", "bad.h5"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and word in err[0] and balanced_quotes(err[0]), err
    assert snapshot(workdir) == before


def test_an_existing_result_is_not_replaced_without_force(workdir, capsys):
    (workdir / "tiny.toml").write_text(STUDY)
    (workdir / "tiny.h5").write_text("mine")
    assert cli(["onset", "tiny.toml", "-o", "tiny.h5"]) == 2
    assert "--force" in capsys.readouterr().err and (workdir / "tiny.h5").read_text() == "mine"
