"""Fixtures of the command-line tests: a folder of inputs (result files, run files, files that are not what
they claim) written once per session; each test gets its own copy as its working directory."""
from __future__ import annotations

import shutil

import pytest

import meanfield as mf
from meanfield.sweeps.store import write_trajectory

from .helpers import run_text, write_sweep


@pytest.fixture(scope="session")
def inputs(tmp_path_factory):
    base = tmp_path_factory.mktemp("inputs")
    write_sweep(base / "sweep.h5", run_text())
    write_sweep(base / "no_exponents.h5", run_text("no_exponents", lyapunov="false", tail=0))
    write_sweep(base / "other_grid.h5", run_text("other_grid", grid="beta_o = [1.0, 1.3]"))
    write_sweep(base / "map.h5", run_text("map", grid="beta_o = [1.0, 1.3]\nbeta_att = [2.0, 2.2]"))
    write_trajectory(base / "traj.h5", mf.simulate(mf.presets.paper(beta_o=1.3), 500, 100))
    (base / "run.toml").write_text(run_text())
    (base / "bad_toml.toml").write_text("steps = = 3\n")
    (base / "unknown_key.toml").write_text(run_text() + "\nsteppz = 3\n")
    (base / "text.h5").write_text("not an HDF5 file\n")
    return base


@pytest.fixture
def workdir(inputs, tmp_path, monkeypatch):
    """A copy of the inputs as the working directory."""
    work = tmp_path / "work"
    shutil.copytree(inputs, work)
    monkeypatch.chdir(work)
    return work
