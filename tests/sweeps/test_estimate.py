"""The dry run's time estimate is measured on pieces that add up to the run (meanfield/sweeps/execute/estimate.py):
the recorded part at its real length (the evidence and the exponents cost what they will), the transient as plain
steps scaled linearly. Its arithmetic is checked here on fake clocks; its accuracy against whole sweeps is a timing,
measured in bench/sweep.py, not here."""
import json
import pathlib
import subprocess
import sys

import numpy as np
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


class FakeClock:
    """A clock that moves only when a fake task moves it. It has only the attribute named ``kind``
    (``process_time`` or ``perf_counter``): an estimate that read another clock would fail, not time this machine."""

    def __init__(self, kind):
        self.now = 1000.0
        setattr(self, kind, lambda: self.now)


def test_the_estimate_runs_both_pieces_and_writes_nothing(tmp_path, monkeypatch):
    """The real pieces through the real task (nothing mocked) give a number and write no file; what the number
    is on this machine is a timing, for bench/ (the arithmetic is checked on a fake clock below)."""
    monkeypatch.chdir(tmp_path)
    run = mf.load_run(ROOT / "runs" / "paper_fig3_quick.toml", steps=3000, transient=2000,
                      **{"grid.beta_o.num": 8, "chunk": 8})
    assert isinstance(estimate.seconds_per_point(run), float)
    assert list(tmp_path.iterdir()) == []


def test_the_estimate_is_the_pieces_cpu_time_scaled_per_point(monkeypatch):
    """seconds_per_point on a fake CPU clock, through a fake task whose cost is known (per point, recorded_cost
    seconds per recorded step and plain_cost per transient step), so the estimate is known by hand."""
    import numba
    recorded_cost, plain_cost = 2.0 ** -12, 2.0 ** -14         # dyadic: the clock's sums are exact
    clock, calls = FakeClock("process_time"), []

    def fake_task(run, indices, parents):
        calls.append((run.steps, run.transient, run.lyapunov, list(indices), numba.get_num_threads()))
        clock.now += len(indices) * ((run.steps - run.transient) * recorded_cost + run.transient * plain_cost)

    monkeypatch.setattr(estimate, "time", clock)
    monkeypatch.setattr(estimate, "compute_chunk", fake_task)
    threads = numba.get_num_threads()
    # 500 000 recorded steps after a 100 000-step transient, a chunk of 4 of the 4001 points
    run = mf.load_run(ROOT / "runs" / "paper_fig3.toml", steps=600_000, transient=100_000, chunk=4)
    got = estimate.seconds_per_point(run)
    # by hand: the recorded piece runs 100 000 of the 500 000 recorded steps (x5) after 1000 transient steps;
    # the plain piece 50 000 of the other 99 000 transient steps (x1.98), with 4 recorded rows
    piece = 100_000 * recorded_cost + 1000 * plain_cost
    plain = 4 * recorded_cost + 50_000 * plain_cost
    # rel 1e-12: the fake clock's sums are exact; only the two scale factors and the division by 4 round (1e-16)
    assert got == pytest.approx(5 * piece + 1.98 * plain, rel=1e-12)
    # each timed piece follows an untimed one-point warm-up (had a warm-up been timed, the estimate would hold a
    # fifth point's cost); every call on one thread, the caller's thread count restored
    assert [c[:3] for c in calls] == [(101_000, 1000, run.lyapunov)] * 2 + [(50_004, 50_000, False)] * 2
    timed = calls[1][3]
    assert len(set(timed)) == 4 and 0 < min(timed) and max(timed) < 4000      # 4 points inside the grid
    assert calls[0][3] == calls[2][3] == timed[:1] and calls[3][3] == timed
    assert all(c[4] == 1 for c in calls) and numba.get_num_threads() == threads


def test_a_short_runs_estimate_is_its_one_piece_on_a_fake_clock(monkeypatch):
    """No plain piece (the transient fits the recorded piece's): the estimate is one timed call per point."""
    clock, calls = FakeClock("process_time"), []

    def fake_task(run, indices, parents):
        calls.append(len(indices))
        clock.now += 0.375 * len(indices)                        # 0.375 s per point: exact in binary

    monkeypatch.setattr(estimate, "time", clock)
    monkeypatch.setattr(estimate, "compute_chunk", fake_task)
    run = mf.load_run(ROOT / "runs" / "paper_fig3_quick.toml", steps=1500, transient=500,
                      **{"grid.beta_o.num": 3, "chunk": 8})
    assert estimate.seconds_per_point(run) == 0.375               # exact: 3 × 0.375 / 3 in binary
    assert calls == [1, 3]                                         # the warm-up, then all 3 points (chunk > grid)


@pytest.mark.system  # a fresh Python process
def test_the_workers_start_up_is_timed_as_a_first_task_in_a_fresh_process(tmp_path, monkeypatch):
    """startup_seconds runs a worker's imports and a short first task of the run (a census's keeps two cycles of
    its longest period, the least its tail may hold) in a new process: it runs for runs of both kinds, and writes
    nothing. (How long it takes is a timing, for bench/, not a test: the arithmetic is checked on a fake clock
    below.)"""
    monkeypatch.chdir(tmp_path)
    census = mf.load_run(ROOT / "runs" / "paper_census_quick.toml", **{"grid.beta_o.num": 2})
    plain = mf.load_run(ROOT / "runs" / "paper_fig3_quick.toml", **{"grid.beta_o.num": 2})
    for run in (census, plain):
        assert estimate.startup_seconds(run) is not None        # None: the first-task process failed
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name, recorded", [("paper_census_quick", 2 * 256), ("paper_fig3_quick", 200)])
def test_the_start_up_is_the_first_task_process_on_a_fake_wall_clock(monkeypatch, name, recorded):
    """startup_seconds on a fake wall clock, with a fake process that takes 2.75 s (exact in binary): the
    estimate is those 2.75 s, the process is given the short run (1000 transient steps, then two cycles of a
    census's max_period = 256 or 200 recorded steps), and a failed process gives None."""
    from meanfield.sweeps.config.runfile import stored_run
    clock, given = FakeClock("perf_counter"), []

    class FakeSubprocess:
        returncode = 0

        @classmethod
        def run(cls, args, input, **kwargs):
            given.append((args, stored_run(json.loads(input))))
            clock.now += 2.75
            return subprocess.CompletedProcess(args, cls.returncode, "", "")

    monkeypatch.setattr(estimate, "time", clock)
    monkeypatch.setattr(estimate, "subprocess", FakeSubprocess)
    run = mf.load_run(ROOT / "runs" / f"{name}.toml", **{"grid.beta_o.num": 2})
    assert estimate.startup_seconds(run) == 2.75
    (args, first), = given
    assert args[0] == sys.executable and (first.steps, first.transient) == (1000 + recorded, 1000)
    FakeSubprocess.returncode = 1
    assert estimate.startup_seconds(run) is None


def test_the_per_task_cost_is_in_the_estimate():
    """The same 90 000 tiny points in 2 813 tasks are estimated well above the same points in one task: the client's
    part of every task (Dask, the write of its chunk and journal record) is serial, the packing divides over the
    workers. Dyadic costs: the sums are exact."""
    cost = estimate.TaskCost(client=2.0 ** -7, worker=2.0 ** -11, timed=8)       # ≈ 7.8 ms and ≈ 0.5 ms a task
    per_point = 2.0 ** -15
    many = estimate.total_seconds(90_000, 2813, per_point, cost, workers=2)
    one = estimate.total_seconds(90_000, 1, per_point, cost, workers=2)
    assert many == 2813 * 2.0 ** -7 + (90_000 * per_point + 2813 * 2.0 ** -11) / 2
    assert many - one == 2812 * (2.0 ** -7 + 2.0 ** -12)      # ≈ 23 s more: nothing of it divided over 2 workers
    assert estimate.total_seconds(90_000, 2813, per_point, estimate.TaskCost(0.0, 0.0, 0), 2) == 90_000 * per_point / 2


@pytest.mark.integration  # an in-process Dask cluster
def test_the_per_task_cost_is_timed_on_real_tasks_in_a_scratch_file_deleted_afterwards(tmp_path, monkeypatch):
    """task_seconds pushes real tasks of the run through a Dask client and the sweep's own write (file and journal)
    into a temporary directory: it gives positive costs, times the tasks after the first, and leaves nothing behind,
    neither in the working directory nor in the temporary directory."""
    import tempfile

    from meanfield.sweeps.execute.plan import plan
    monkeypatch.chdir(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(estimate, "OVERHEAD_BUDGET", float("inf"))     # how many are timed: not a matter of time
    run = mf.load_run(ROOT / "runs" / "phase_diagram.toml", steps=20, transient=10,
                      **{"grid.beta_o.num": 16, "grid.beta_att.num": 16, "chunk": 8})
    tasks = plan(run, np.zeros(run.n_points, dtype=bool), 2)
    cost = estimate.task_seconds(run, tasks)
    assert cost.client > 0 and cost.worker >= 0
    assert len(tasks) == 32 and cost.timed == 31                      # 32 tasks of 8 points: all but the first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmp"] and list(scratch.iterdir()) == []


@pytest.mark.system  # worker processes
def test_on_the_sweeps_own_cluster_the_tasks_come_from_worker_processes(tmp_path, monkeypatch):
    """task_seconds with the sweep's local cluster (two worker processes): the timed tasks' results come from the
    workers, the cluster's start and close are timed, and nothing is left in the working directory or the
    temporary directory (Dask's scratch space included)."""
    import tempfile
    from functools import partial

    from meanfield.sweeps.execute.cluster import local_cluster
    from meanfield.sweeps.execute.plan import plan
    monkeypatch.chdir(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(estimate, "OVERHEAD_BUDGET", float("inf"))     # how many are timed: not a matter of time
    run = mf.load_run(ROOT / "runs" / "phase_diagram.toml", steps=20, transient=10,
                      **{"grid.beta_o.num": 16, "grid.beta_att.num": 16, "chunk": 8})
    cost = estimate.task_seconds(run, plan(run, np.zeros(run.n_points, dtype=bool), 2), partial(local_cluster, 2))
    assert cost.client > 0 and cost.cluster > 0 and cost.timed == 31
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmp"] and list(scratch.iterdir()) == []
