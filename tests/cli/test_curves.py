"""``meanfield curves``: a study file in, an HDF5 file xarray reads and the figure out, every stored curve the one
``mf.bifurcation_curve`` gives; an interrupted study resumes from its journal (a finished curve adopted, a line cut
by a kill recomputed); wrong study files and options are one line, exit 2, nothing written."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import xarray

import meanfield as mf
import meanfield.studies.curve_study as curve_study

from .helpers import balanced_quotes, cli, snapshot

#: Two pieces of the rest cycle's Neimark–Sacker curve (docs/bifurcations.md §10), a second each.
STUDY = """
name = "tiny"
parameters = ["beta_o", "beta_att"]
interval = [2.0, 2.4]

[model]
preset = "paper"

[[curve]]
name = "wide"
locate = [1.24, 1.245]
kind = "neimark_sacker"

[[curve]]
name = "narrow"
locate = [1.24, 1.245]
interval = [2.1, 2.3]
"""


def test_a_study_stores_the_curves_mf_bifurcation_curve_gives(workdir, capsys):
    (workdir / "tiny.toml").write_text(STUDY)
    assert cli(["curves", "tiny.toml", "-o", "tiny.h5", "--plot", "tiny.png"]) == 0
    model = mf.presets.paper()
    point, = mf.bifurcations(model, "beta_o", (1.24, 1.245))
    with xarray.open_dataset(workdir / "tiny.h5", engine="h5netcdf") as ds:
        assert ds.curve.values.tolist() == ["wide", "narrow"] and ds.parameter.values.tolist() == ["beta_o",
                                                                                                  "beta_att"]
        assert json.loads(ds.attrs["provenance"])[0]["action"] == "curves"          # what made the file
        for name, interval in (("wide", (2.0, 2.4)), ("narrow", (2.1, 2.3))):
            curve = mf.bifurcation_curve(model.replace(beta_o=point.value), point, "beta_att", interval)
            k = int(ds.length.sel(curve=name))
            stored = ds["values"].sel(curve=name).values
            assert np.array_equal(stored[:k], curve.values) and np.isnan(stored[k:]).all()
            assert np.array_equal(ds.coefficient.sel(curve=name).values[:k], curve.coefficients)
            assert ds.criticality.sel(curve=name).values[:k].tolist() == curve.criticality
            assert str(ds.kind.sel(curve=name).values) == "neimark_sacker" and int(ds.period.sel(curve=name)) == 4
        assert ds.sizes["special"] == 0                     # no codim-2 point on β_att ∈ [2, 2.4]
    assert "wrote tiny.h5: 2 curves" in capsys.readouterr().out and (workdir / "tiny.png").stat().st_size > 10_000
    assert not (workdir / "tiny.h5.partial.jsonl").exists()


def test_an_interrupted_study_resumes_from_its_journal(workdir, monkeypatch):
    # a journal with one finished curve (values no continuation gives) and a line cut by a kill: the curve is
    # adopted, the cut line ignored, the other curve computed — once
    (workdir / "tiny.toml").write_text(STUDY)
    row = {"name": "wide", "source": "curve", "kind": "fold", "period": 7, "values": [[1.5, 2.0], [1.6, 2.4]],
           "coefficient": [float("nan")] * 2, "criticality": ["", ""], "special": []}
    (workdir / "tiny.h5.partial.jsonl").write_text(json.dumps(row) + "\n" + '{"name": "narrow", "sou')
    computed = []
    compute = curve_study.compute_curve
    monkeypatch.setattr(curve_study, "compute_curve", lambda study, task: computed.append(task.name) or
                        compute(study, task))
    assert cli(["-q", "curves", "tiny.toml", "-o", "tiny.h5"]) == 0
    assert computed == ["narrow"]
    with xarray.open_dataset(workdir / "tiny.h5", engine="h5netcdf") as ds:
        assert ds["values"].sel(curve="wide").values[:2].tolist() == [[1.5, 2.0], [1.6, 2.4]]
        assert int(ds.period.sel(curve="wide")) == 7 and int(ds.length.sel(curve="narrow")) > 2
    assert not (workdir / "tiny.h5.partial.jsonl").exists()


def test_ctrl_c_keeps_the_finished_curves_and_the_rerun_gives_the_same_file(workdir, monkeypatch):
    (workdir / "tiny.toml").write_text(STUDY)
    assert cli(["-q", "curves", "tiny.toml", "-o", "whole.h5"]) == 0
    compute = curve_study.compute_curve

    def stop_at_narrow(study, task):
        if task.name == "narrow":
            raise KeyboardInterrupt
        return compute(study, task)

    monkeypatch.setattr(curve_study, "compute_curve", stop_at_narrow)
    assert cli(["-q", "curves", "tiny.toml", "-o", "tiny.h5"]) == 130
    assert not (workdir / "tiny.h5").exists()
    assert [json.loads(line)["name"] for line in (workdir / "tiny.h5.partial.jsonl").read_text().splitlines()] == \
        ["wide"]
    monkeypatch.setattr(curve_study, "compute_curve", compute)
    assert cli(["-q", "curves", "tiny.toml", "-o", "tiny.h5"]) == 0
    with xarray.open_dataset(workdir / "tiny.h5", engine="h5netcdf") as a, \
            xarray.open_dataset(workdir / "whole.h5", engine="h5netcdf") as b:
        # the same data and settings; only the provenance record's time may differ
        a, b = a.load(), b.load()
        assert [json.loads(x.attrs.pop("provenance"))[0]["action"] for x in (a, b)] == ["curves", "curves"]
        xarray.testing.assert_identical(a, b)


WRONG = [
    ('parameters = ["beta_o"]', "parameters"),
    ('parameters = ["beta_o", "beta_o"]', "parameters"),
    ('parameters = ["beta_o", "beta"]', "parameters"),
    ("interval = [3.0, 4.0]", "must contain the model's beta_att"),
    ("interval = [2.4, 2.0]", "interval"),
    ("bogus = 1", "bogus"),
    ("name = 3", "name"),
    ("interval = [2.0", "TOML"),
    ('[[curve]]\nname = "x"', "curve[2].locate is missing"),
    ('[[curve]]\nname = "x"\nlocate = [1.2, 1.3]\nkind = "hopf"', "kind"),
    ('[[curve]]\nname = "x"\nlocate = [1.2, 1.3]\nperiod = 0', "period"),
    ('[[curve]]\nname = "x"\nlocate = [1.2, 1.3]\nsettle = [1.27, -5]', "settle"),
    ('[[curve]]\nname = "x"\nlocate = [1.2, 1.3]\ninterval = [2.5, 3.0]', "must contain the model's beta_att"),
    ('[[curve]]\nname = "wide"\nlocate = [1.2, 1.3]', "two curves have it"),
    ('[[curve]]\nname = "a b"\nlocate = [1.2, 1.3]', "name"),
    ('[[tongue]]\nname = "t"', "tongue[0].settle is missing"),
    ('[[tongue]]\nname = "t"\nsettle = [1.25, 1000]\nlocate = [1.2, 1.3]', "tongue[0].locate is not allowed"),
]


@pytest.mark.parametrize("change, word", WRONG, ids=[w for _, w in WRONG])
def test_a_wrong_study_file_is_one_line_exit_2_and_writes_nothing(workdir, capsys, change, word, monkeypatch):
    monkeypatch.setattr(curve_study, "compute_curve", lambda *a: pytest.fail("computation started"))
    key = change.split("=")[0].strip()
    head, tables = STUDY.split("[model]")
    lines = [line for line in head.splitlines() if not line.startswith(key + " ")]
    text = "\n".join(lines) + ("\n" + change + "\n" if not change.startswith("[[") else "\n") + "[model]" + tables
    if change.startswith("[["):
        text += "\n" + change + "\n"
    (workdir / "bad.toml").write_text(text)
    before = snapshot(workdir)
    assert cli(["curves", "bad.toml", "-o", "bad.h5"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and word in err[0] and balanced_quotes(err[0]), err
    assert snapshot(workdir) == before


@pytest.mark.parametrize("options, word", [([], "--force"), (["--force", "--background", "x.h5"], "--plot"),
                                           (["--force", "--plot", "f.png", "--background", "none.h5"], "no such"),
                                           (["--force", "--plot", "f.txt"], "suffix")])
def test_wrong_options_are_one_line_and_leave_the_result_alone(workdir, capsys, options, word):
    (workdir / "tiny.toml").write_text(STUDY)
    (workdir / "tiny.h5").write_text("mine")
    assert cli(["curves", "tiny.toml", "-o", "tiny.h5", *options]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and word in err[0] and (workdir / "tiny.h5").read_text() == "mine"


@pytest.mark.system     # a process killed with SIGKILL
@pytest.mark.slow       # the 1:4 tongue twice (~10 s each) and a fresh interpreter
def test_a_study_killed_with_sigkill_resumes_to_the_same_file(workdir):
    text = STUDY.replace("interval = [2.0, 2.4]", "interval = [2.0, 5.2]") + \
        '\n[[tongue]]\nname = "t14"\nsettle = [1.2502562, 200000]\n'
    (workdir / "tiny.toml").write_text(text)
    journal = workdir / "tiny.h5.partial.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "meanfield", "-q", "curves", "tiny.toml", "-o", "tiny.h5"],
                            cwd=workdir, stderr=subprocess.PIPE, text=True)
    # until the two NS curves are in the journal (the tongue takes seconds more); a hung child is stopped by
    # pytest-timeout, not by a clock here
    while not (journal.exists() and journal.read_text().count("\n") >= 2) and proc.poll() is None:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL and not (workdir / "tiny.h5").exists()
    assert [json.loads(line)["name"] for line in journal.read_text().splitlines()] == ["wide", "narrow"]
    assert cli(["-q", "curves", "tiny.toml", "-o", "tiny.h5"]) == 0
    assert cli(["-q", "curves", "tiny.toml", "-o", "whole.h5"]) == 0
    with xarray.open_dataset(workdir / "tiny.h5", engine="h5netcdf") as a, \
            xarray.open_dataset(workdir / "whole.h5", engine="h5netcdf") as b:
        # the same data and settings; only the provenance record's time may differ
        a, b = a.load(), b.load()
        assert [json.loads(x.attrs.pop("provenance"))[0]["action"] for x in (a, b)] == ["curves", "curves"]
        xarray.testing.assert_identical(a, b)
        assert a.curve.values.tolist() == ["wide", "narrow", "t14.lower", "t14.upper"]
        assert a.special_kind.values.tolist() == ["resonance_1:4", "tip"]


def test_the_shipped_study_is_the_onset_runs_curves_table():
    """runs/studies/onset_curves.toml computes alone what runs/onset_tongues.toml's [curves] table computes after
    its sweep: the two must not drift apart."""
    from pathlib import Path
    study = curve_study.load_curve_study(Path(__file__).parents[2] / "runs" / "studies" / "onset_curves.toml")
    table = mf.load_run("onset_tongues").curves
    assert (study.parameters, study.interval, study.tasks) == (table.parameters, table.interval, table.tasks)
    assert study.model_table == table.model_table
