"""The command line used as intended: --version, python -m meanfield, -q/-v/--log-file, a closed pipe, sweep
--set / --dry-run / resume messages, compare -o as a directory or a prefix, and the progress bars' ETA."""
import io
import json
import os
import subprocess
import sys

import h5py
import pytest

import meanfield as mf
from meanfield.progress import progress_bar
from meanfield.sweeps.store import write_trajectory

from .helpers import cli, snapshot

COMMAND = [sys.executable, "-m", "meanfield"]


@pytest.mark.system
def test_version_and_python_dash_m():
    from meanfield import __version__
    done = subprocess.run(COMMAND + ["--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"meanfield {__version__}"
    helped = subprocess.run(COMMAND + ["--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "simulate" in helped.stdout and "--log-file" in helped.stdout


@pytest.mark.system
def test_info_into_a_pipe_closed_early_is_quiet(workdir):
    done = subprocess.run(f"{sys.executable} -m meanfield info sweep.h5 | head -n 1", shell=True,
                          capture_output=True, text=True, cwd=workdir)
    assert done.stdout.startswith("sweep.h5: sweep") and done.stdout.count("\n") == 1
    assert done.stderr == ""


def test_info_prints_the_provenance(workdir, capsys):
    assert cli(["info", "traj.h5"]) == 0
    out = capsys.readouterr().out
    assert "provenance [0] simulate" in out and "numpy" in out and "command:" in out


def test_info_prints_the_gamma_in_use(workdir, capsys):
    # the paper preset derives γ = β_att·scaling_att/√M = 2.2·100/√3 = 127.01706 (docs/model.md §1)
    for path in ("sweep.h5", "traj.h5"):
        assert cli(["info", path]) == 0
        assert "gamma=127.017 (beta_att*scaling_att/sqrt(M))" in capsys.readouterr().out
    assert cli(["info", "map.h5"]) == 0                                   # β_att is an axis: γ follows it
    assert "gamma=swept (with beta_att" in capsys.readouterr().out
    write_trajectory("set.h5", mf.simulate(mf.presets.paper(gamma=50.5), 300, 100))
    assert cli(["info", "set.h5"]) == 0
    assert "gamma=50.5," in capsys.readouterr().out


def test_quiet_and_the_log_file(workdir, capsys):
    assert cli(["-q", "plot", "density", "sweep.h5", "-o", "density.png", "--log-file", "run.log"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "" and os.path.getsize("density.png") > 1000
    log = open("run.log", encoding="utf-8").read()
    assert "command line:" in log and "numba" in log
    assert cli(["plot", "density", "sweep.h5", "-o", "density.xyz", "--log-file", "run.log", "-v"]) == 2
    assert "Traceback" in open("run.log", encoding="utf-8").read()      # the log keeps the details


def test_a_sweep_without_a_census_is_named_whole(workdir, capsys):
    assert cli(["plot", "attractors", "sweep.h5", "-o", "census.png"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'sweep.h5' holds no attractor census 'up'" in err, err


def test_compare_writes_into_a_directory_or_with_a_prefix(workdir, capsys):
    assert cli(["compare", "sweep.h5", "--probe", "1", "-o", "new_dir/"]) == 0
    assert sorted(os.listdir("new_dir")) == ["pid_compare.csv", "pid_compare.md", "pid_compare.png",
                                             "pid_compare_fractions.png"]
    os.mkdir("existing")
    assert cli(["-q", "compare", "sweep.h5", "--probe", "1", "-o", "existing"]) == 0
    assert "pid_compare.png" in os.listdir("existing")
    assert cli(["-q", "compare", "sweep.h5", "--probe", "1", "-o", "figs/run1"]) == 0
    assert sorted(os.listdir("figs")) == ["run1.csv", "run1.md", "run1.png", "run1_fractions.png"]


@pytest.mark.system
def test_sweep_overrides_dry_run_and_an_already_complete_file(workdir, capsys):
    before = snapshot(workdir)
    small = ["--set", "steps=300", "--set", "transient=200", "--set", "grid.beta_o.num=3", "--set", "chunk=2"]
    assert cli(["sweep", "run.toml", "-o", "small.h5", "--dry-run", *small]) == 0
    out = capsys.readouterr().out
    assert "3 points" in out and "kB" in out and "time: ≈" in out and "nothing was computed" in out
    assert snapshot(workdir) == before
    assert cli(["sweep", "run.toml", "-o", "small.h5", "--workers", "1", "--no-progress", *small]) == 0
    with h5py.File("small.h5", "r") as f:
        assert f["done"][...].all() and f["beta_o"].shape == (3,)
        assert "steps = 300" in f.attrs["run_toml"]                    # the overrides are on record
        assert json.loads(f.attrs["run_json"])["steps"] == 300
    capsys.readouterr()
    written = snapshot(workdir)
    assert cli(["sweep", "run.toml", "-o", "small.h5", *small]) == 0
    assert "already complete (3 points): nothing to do" in capsys.readouterr().err
    assert snapshot(workdir) == written
    assert cli(["sweep", "run.toml", "-o", "small.h5", "--dry-run", *small]) == 0
    assert "3 points done: 0 to compute" in capsys.readouterr().out


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_eta_is_measured_after_the_first_update():
    """100 s of compilation, then 1 point per second: the rate is 1/s and the ETA the points left, not
    ~100 s per point as an average from the start would say."""
    clock = Clock()
    stream = io.StringIO()
    bar = progress_bar(50, "test", waiting="compiling")
    bar.fp = stream
    bar._time = clock
    bar.start_t = bar.last_print_t = 0.0
    bar.mininterval = bar.miniters = 0
    clock.now = 100.0
    bar.update(1)                                  # the first point arrives after the compilation
    for _ in range(9):
        clock.now += 1.0
        bar.update(1)
    stats = bar.format_dict
    rate = stats["rate"] if stats["rate"] else (stats["n"] - stats["initial"]) / stats["elapsed"]
    assert abs(rate - 1.0) < 0.05                  # would be 10 / 109 s ≈ 0.09 /s measured from the start
    assert stats["elapsed"] == 109.0                # elapsed time keeps counting from the start
    bar.close()
