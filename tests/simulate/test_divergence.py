"""A runaway PID loop outside sweeps (docs/model.md §5.3): ``simulate`` reports the step in the Trajectory
and the trajectory file, the command line says so in one line, the figure marks it, and ``classify`` says
``divergent``."""
import h5py
import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis import classify
from meanfield.cli import main
from meanfield.plots.trajectory import trajectory_figure
from meanfield.sweeps.store import write_trajectory

from .helpers import with_control

#: Near the fixed point the P loop multiplies deviations by about -K_P: K_P = 3 runs away within ~100 steps,
#: K_P = 0.5 stays bounded (test_control.py::test_loop_stability).
RUNAWAY, BOUNDED = 3.0, 0.5


@pytest.fixture(scope="module")
def runaway(paper):
    return mf.simulate(with_control(paper, kp=RUNAWAY), 600, 0, lyapunov=3)


def test_the_trajectory_and_its_file_record_the_divergence(paper, runaway, tmp_path):
    assert 0 < runaway.diverged_at < 100
    rows = runaway.transient + np.arange(len(runaway.mo_se))
    assert np.all(np.isfinite(runaway.mo_se[rows < runaway.diverged_at]))
    assert np.all(np.isnan(runaway.mo_se[rows >= runaway.diverged_at]))
    with h5py.File(write_trajectory(tmp_path / "runaway.h5", runaway), "r") as f:
        assert f.attrs["diverged_at"] == runaway.diverged_at
    bounded = mf.simulate(with_control(paper, kp=BOUNDED), 600, 0)
    with h5py.File(write_trajectory(tmp_path / "bounded.h5", bounded), "r") as f:
        assert bounded.diverged_at == -1 and f.attrs["diverged_at"] == -1


def test_the_command_line_says_divergent_in_one_line(runaway, tmp_path, capsys):
    out, png = tmp_path / "runaway.h5", tmp_path / "runaway.png"
    assert main(["simulate", "--beta", "1", "--set", f"control.kp={RUNAWAY}", "--steps", "600", "--transient",
                 "0", "-o", str(out), "--plot", str(png)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "divergent" in line]
    assert len(lines) == 1 and f"step {runaway.diverged_at}" in lines[0]
    with h5py.File(out, "r") as f:
        assert f.attrs["diverged_at"] == runaway.diverged_at
    assert png.stat().st_size > 1000


def test_the_figure_marks_the_divergence(runaway):
    ax = trajectory_figure(runaway).axes[0]
    marks = [line for line in ax.get_lines() if line.get_label().startswith("diverged")]
    assert len(marks) == 1 and marks[0].get_xdata()[0] == runaway.diverged_at
    assert "divergent" in ax.figure.get_suptitle()
    shown = np.concatenate([line.get_ydata() for line in ax.get_lines() if line not in marks])
    assert np.isfinite(shown).any(), "the steps before the divergence are drawn"


def test_classify_says_divergent(runaway):
    assert classify(runaway).label == "divergent"
