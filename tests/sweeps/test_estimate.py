"""The dry run's time estimate is measured on pieces that add up to the run (meanfield/sweeps/execute/estimate.py):
the recorded part at its real length (the evidence and the exponents cost what they will), the transient as plain
steps scaled linearly. Its accuracy against whole sweeps is a timing, measured in bench/sweep.py, not here."""
import pathlib

import pytest

import meanfield as mf
from meanfield.sweeps.execute import estimate

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_pieces_add_up_to_the_figure_3_run():
    run = mf.load_run(ROOT / "runs" / "paper_fig3.toml")                     # 175 000 steps, 100 000 transient
    (piece, piece_factor), (plain, plain_factor) = estimate.calibration_runs(run)
    assert piece.steps - piece.transient == run.steps - run.transient and piece_factor == 1.0
    assert piece.lyapunov == run.lyapunov and piece.reductions == run.reductions
    assert not plain.lyapunov and plain.record.tail == 0
    # the plain piece stands for the transient the recorded piece does not run
    assert plain.transient * plain_factor == pytest.approx(run.transient - piece.transient)


def test_a_long_recorded_part_is_cut_and_scaled():
    run = mf.load_run(ROOT / "runs" / "paper_fig3.toml", steps=600_000, transient=100_000)
    (piece, factor), _ = estimate.calibration_runs(run)
    assert piece.steps - piece.transient == estimate.MAX_RECORDED
    assert (piece.steps - piece.transient) * factor == 500_000


def test_a_short_run_is_measured_whole():
    run = mf.load_run(ROOT / "runs" / "paper_fig3_quick.toml", steps=1500, transient=500)
    (piece, factor), (plain, plain_factor) = estimate.calibration_runs(run)
    assert (piece.steps, piece.transient, factor) == (1500, 500, 1.0)
    assert plain is None and plain_factor == 0.0


def test_the_estimate_runs_both_pieces_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = mf.load_run(ROOT / "runs" / "paper_fig3_quick.toml", steps=3000, transient=2000,
                      **{"grid.beta_o.num": 8, "chunk": 8})
    assert 0 < estimate.seconds_per_point(run) < float("inf")
    assert list(tmp_path.iterdir()) == []


def test_the_workers_start_up_is_timed_as_a_first_task_in_a_fresh_process(tmp_path, monkeypatch):
    """startup_seconds runs a worker's imports and a short first task of the run (a census's keeps two cycles of
    its longest period, the least its tail may hold) in a new process: it runs for runs of both kinds, and writes
    nothing. (How long it takes is a timing, for bench/, not a test.)"""
    monkeypatch.chdir(tmp_path)
    census = mf.load_run(ROOT / "runs" / "paper_census_quick.toml", **{"grid.beta_o.num": 2})
    plain = mf.load_run(ROOT / "runs" / "paper_fig3_quick.toml", **{"grid.beta_o.num": 2})
    for run in (census, plain):
        assert estimate.startup_seconds(run) is not None        # None: the first-task process failed
    assert list(tmp_path.iterdir()) == []
