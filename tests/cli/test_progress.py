"""Long work shows a progress bar on stderr (meanfield/progress.py) and ``-q`` silences it: ``analyze
--bifurcations`` (a bar over the slow-cycle suspects, one over the brackets showing where a continuation is),
``analyze --refine`` (one per round) and a census sweep (its points, then the chain of its censuses). Inputs
from conftest.py: sweep.h5 has β_o = 1.0, 1.2, 1.4, 1.6 (700 steps), whose classes change between 1.0 and 1.2."""
import re

import pytest

from .helpers import cli

#: A tqdm bar that reached its end: "DESC: 100%|...| N/N"
DONE = r"{}: 100%\|[^|]*\| (\d+)/\1"

CENSUS = """
name = "census"
steps = 2000
transient = 1000
chunk = 2

[model]
preset = "paper"

[grid]
beta_o = [1.0, 1.3, 1.6]

[attractors]
starts = 4
direction = "up"
"""


def _bars(argv, capsys) -> tuple[str, str]:
    """stderr of ``meanfield ARGV`` and of ``meanfield -q ARGV`` (each on its own copy of the file)."""
    assert cli(argv) == 0
    loud = capsys.readouterr().err
    assert cli(["-q", *(a.replace(".h5", "_q.h5") for a in argv)]) == 0
    return loud, capsys.readouterr().err


@pytest.fixture
def copies(workdir):
    (workdir / "sweep_q.h5").write_bytes((workdir / "sweep.h5").read_bytes())
    return workdir


def test_analyze_bifurcations_shows_its_two_stages(copies, capsys):
    loud, quiet = _bars(["analyze", "sweep.h5", "--bifurcations"], capsys)
    assert re.search(DONE.format("slow cycles"), loud), loud
    assert re.search(DONE.format("transitions"), loud), loud
    # inside a bracket the bar shows where its continuation is (the fixed point below 1.2 is continued up)
    assert re.search(r"continuing at beta_o = 1\.[0-9]+", loud), loud
    assert quiet == ""


def test_analyze_refine_shows_each_round(copies, capsys):
    loud, quiet = _bars(["analyze", "sweep.h5", "--refine", "0.1"], capsys)
    assert re.search(DONE.format("refine round_00"), loud), loud
    assert quiet == ""


@pytest.mark.system
def test_a_census_sweep_shows_its_points_and_its_chain(workdir, capsys):
    (workdir / "census.toml").write_text(CENSUS)
    loud, quiet = _bars(["sweep", "census.toml", "-o", "census.h5", "--workers", "1"], capsys)
    assert re.search(DONE.format("census"), loud) and re.search(DONE.format("census: attractors"), loud), loud
    assert quiet == ""


def test_ctrl_c_during_refine_keeps_the_finished_points(copies, capsys, monkeypatch):
    """As a sweep: Ctrl-C stops with exit status 130 and one line; the points computed before it are in the file,
    and the next run computes only the rest (docs/classification.md §9)."""
    import h5py

    from meanfield.sweeps.results import refine
    real, calls = refine.compute_chunk, []

    def interrupted(*args):                 # Ctrl-C while the second batch is computed
        calls.append(args[1].size)
        if len(calls) == 2 and "stop" not in calls:
            calls.append("stop")
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(refine, "BATCH", 1)
    monkeypatch.setattr(refine, "compute_chunk", interrupted)
    assert cli(["analyze", "sweep.h5", "--refine", "0.05"]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == "meanfield analyze: interrupted"
    with h5py.File("sweep.h5", "r") as f:
        assert f["refine/round_00/done"][...].tolist() == [True]          # round 0 bisects one bracket
        assert not f["refine/round_01/done"][...].all()
    del calls[:]
    calls.append("stop")
    assert cli(["-q", "analyze", "sweep.h5", "--refine", "0.05"]) == 0
    with h5py.File("sweep.h5", "r") as f:                                # round 0 is not computed again
        assert len(calls) - 1 == sum(f["refine"][r]["done"].size for r in f["refine"] if r != "round_00") >= 1
        assert all(f["refine"][r]["done"][...].all() for r in f["refine"])
