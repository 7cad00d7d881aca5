"""Run files, planning, storage layout and reductions: no Dask, no kernel (fast)."""
from __future__ import annotations

import os

import h5py
import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis.reductions import reduce_points
from meanfield.errors import ConfigError, StoreError
from meanfield.sweeps.execute.plan import parents_of, plan
from meanfield.sweeps.execute.slurm import slurm_kwargs
from meanfield.sweeps.store import create_sweep, read_points, sweep_layout, write_points
from tests.cli.helpers import balanced_quotes

from .helpers import tiny_text

RUNS = os.path.join(os.path.dirname(__file__), "..", "..", "runs")


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(RUNS) if n.endswith(".toml")))  # studies/: onset
def test_shipped_run_files_load(name):
    run = mf.load_run(os.path.join(RUNS, name))
    assert run.n_points >= 1 and run.transient < run.steps


def test_paper_runs_have_the_papers_sizes():
    fig3 = mf.load_run(os.path.join(RUNS, "paper_fig3.toml"))
    assert (fig3.n_points, fig3.steps, fig3.transient, fig3.lyapunov) == (4001, 175000, 100000, 12)
    assert fig3.axes[0].values[0] == 0.0 and fig3.axes[0].values[-1] == 3.0
    zoom = mf.load_run(os.path.join(RUNS, "paper_fig3_zoom.toml"))
    assert (zoom.n_points, zoom.steps, zoom.transient) == (4001, 110000, 100000)
    assert zoom.axes[0].values[0] == 1.24 and zoom.axes[0].values[-1] == 1.28
    phase = mf.load_run(os.path.join(RUNS, "phase_diagram.toml"))
    assert phase.shape == (200, 200) and [a.name for a in phase.axes] == ["beta_att", "beta_o"]


@pytest.mark.parametrize("change, words", [
    ("bogus = 1\n", ["bogus"]),
    ("[cluster]\nkind = 'local'\nsize = 3\n", ["size", "cluster"]),
])
def test_unknown_keys_are_named(change, words):
    with pytest.raises(ConfigError) as err:
        mf.load_run(change + tiny_text() if "[" not in change else tiny_text() + change)
    assert all(w in str(err.value) for w in words) and balanced_quotes(str(err.value)), str(err.value)


@pytest.mark.parametrize("old, new, words", [
    ("beta_o = { start = 1.0, stop = 2.6, num = 12 }", "beta_o = []", ["grid.beta_o", "empty"]),
    ("beta_o = { start = 1.0, stop = 2.6, num = 12 }", "beta_o = [1.0, nan]", ["grid.beta_o[1]", "nan"]),
    ("beta_o = { start = 1.0, stop = 2.6, num = 12 }", "beta_o = { start = 1.0, stop = 2.6, num = 0 }", ["num", "0"]),
    ("beta_o = { start = 1.0, stop = 2.6, num = 12 }", "beta_q = [1.0]", ["beta_q", "allowed"]),
    ("beta_o = { start = 1.0, stop = 2.6, num = 12 }", "epsilon = [0.5, 2.0]", ["epsilon", "[0, 1]"]),
    ("transient = 200", "transient = 400", ["transient", "400", "steps"]),
    ('observables = ["mo_se", "att"]', 'observables = ["mx"]', ["record.observables", "mx"]),
    ("band_pairs = [[0, 1], [1, 0]]", "band_pairs = [[0, 3]]", ["band_pairs", "3"]),
    ('preset = "paper"', 'preset = "nope"', ["model.preset", "nope"]),
    ("lyapunov = 3", "lyapunov = 13", ["lyapunov", "13"]),
])
def test_bad_values_are_named(old, new, words):
    text = tiny_text()
    assert old in text
    with pytest.raises(ConfigError) as err:
        mf.load_run(text.replace(old, new))
    assert all(w in str(err.value) for w in words) and balanced_quotes(str(err.value)), str(err.value)


def test_control_axes_are_passed_to_the_batch_validation():
    text = tiny_text().replace("beta_o = { start = 1.0, stop = 2.6, num = 12 }", '"control.kp" = [0.0, 0.1]')
    try:
        run = mf.load_run(text)           # accepted once simulate_batch supports control gains
    except ConfigError as err:
        assert "control.kp" in str(err)
    else:
        assert run.axes[0].name == "control.kp"


def _one_point_file(path, run):
    """A sweep file of ``run`` holding one (zero-filled) point: an earlier run's result."""
    f = create_sweep(path, run)
    write_points(f, run, [0], {name: np.zeros((1,) + f[name].shape[1:], f[name].dtype)
                               for name in sweep_layout(run) if name != "done"})
    f.close()


def test_output_with_another_spec_is_refused_and_kept(tmp_path):
    out = tmp_path / "out.h5"
    _one_point_file(out, mf.load_run(tiny_text()))
    before = out.read_bytes()
    with pytest.raises(StoreError, match="another run spec.*steps"):
        mf.sweep(mf.load_run(tiny_text(steps=500)), out)
    with pytest.raises(StoreError, match="exists"):
        mf.sweep(mf.load_run(tiny_text()), out, resume=False)
    assert out.read_bytes() == before


def test_unwritable_output_is_refused(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="not writable|does not exist"):
        mf.sweep(mf.load_run(tiny_text()), blocker / "out.h5")
    assert blocker.read_text() == "x"


def test_non_sweep_file_is_not_resumed(tmp_path):
    out = tmp_path / "traj.h5"
    with h5py.File(out, "w") as f:
        f.attrs["kind"] = "trajectory"
    with pytest.raises(StoreError, match="not a sweep"):
        mf.sweep(mf.load_run(tiny_text()), out)


def test_result_key_ignores_chunk_and_cluster():
    a = mf.load_run(tiny_text(chunk=1))
    b = mf.load_run(tiny_text(chunk=64) + "\n[cluster]\nkind = 'local'\nworkers = 2\n")
    assert a.result_key() == b.result_key() and a.to_json() != b.to_json()


@pytest.mark.parametrize("direction", ["up", "down", "both"])
def test_continuation_chains_cover_every_point_once(direction):
    extra = f"\n[continuation]\naxis = 'beta_o'\ndirection = '{direction}'\nchains = 3\n"
    run = mf.load_run(tiny_text(num=13, extra=extra))
    parents = parents_of(run)
    assert (parents < 0).sum() == 3
    children = parents[parents >= 0]
    assert np.all(np.abs(np.flatnonzero(parents >= 0) - children) == 1)     # neighbours along the axis
    tasks = plan(run, np.zeros(13, bool), workers=2)
    seen = np.concatenate([t.indices for t in tasks])
    assert sorted(seen) == list(range(13))
    owner = {int(i): n for n, t in enumerate(tasks) for i in t.indices}
    for n, t in enumerate(tasks):                                           # parents are in earlier tasks
        assert all(owner[int(p)] < n and owner[int(p)] in t.deps for p in t.parents if p >= 0)


def test_plan_skips_done_points_and_keeps_grid_order():
    """A task holds the points not done of one grid chunk (the chunks of the file's compressed datasets,
    docs/storage.md §3): here the chunks are [0 1 2] [3 4 5] [6 7 8] [9]."""
    run = mf.load_run(tiny_text(num=10, chunk=3))
    done = np.zeros(10, bool)
    done[[0, 1, 5]] = True
    tasks = plan(run, done)
    assert [t.indices.tolist() for t in tasks] == [[2], [3, 4], [6, 7, 8], [9]]


@pytest.mark.parametrize("chunk, expected", [
    (2, [[0, 1], [2, 3], [4], [5, 6], [7, 8], [9], [10, 11], [12, 13], [14]]),   # pieces of a row of 5
    (10, [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]),                  # two whole rows, then one
    (7, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]])])               # one row fits, not two
def test_plan_cuts_a_grid_into_whole_rows_or_pieces_of_rows(chunk, expected):
    text = tiny_text(num=5, chunk=chunk).replace("[grid]\n", "[grid]\nbeta_att = [2.0, 2.2, 2.4]\n")
    run = mf.load_run(text)
    assert [t.indices.tolist() for t in plan(run, np.zeros(15, bool))] == expected


def test_two_axis_writes_land_on_their_points(tmp_path):
    text = tiny_text().replace("beta_o = { start = 1.0, stop = 2.6, num = 12 }",
                               "beta_att = [1.0, 2.0, 3.0]\nbeta_o = [1.0, 1.5, 2.0, 2.5]")
    run = mf.load_run(text)
    f = create_sweep(tmp_path / "g.h5", run)
    indices = np.array([7, 2, 3, 4, 11])
    arrays = {name: np.zeros((5,) + f[name].shape[2:], f[name].dtype) for name in sweep_layout(run) if name != "done"}
    arrays["final_depth"] = indices.astype(np.int16)
    write_points(f, run, indices, arrays)
    assert read_points(f, ["final_depth"], indices)["final_depth"].tolist() == indices.tolist()
    done = f["done"][...]
    f.close()
    assert done.shape == (3, 4) and np.flatnonzero(done).tolist() == sorted(indices.tolist())
    params = run.parameters([7])
    assert params == {"beta_att": np.array([2.0]), "beta_o": np.array([2.5])}


def test_reductions_on_a_known_orbit():
    run = mf.load_run(tiny_text())
    spec = run.reductions                                   # 40 bins on [-1, 1], pairs (0,1), (1,0), tol 0.01
    t = np.arange(1000)
    series = np.column_stack([np.cos(2 * np.pi * t / 8), np.sin(2 * np.pi * t / 8), np.full(1000, 1.0)])
    out = reduce_points(series[None], spec)
    hist = out["hist"][0]
    assert hist.sum(axis=1).tolist() == [1000, 1000, 1000] and hist[2, -1] == 1000
    values, count, distinct = out["band_values"][0], out["band_count"][0], out["band_distinct"][0]
    assert count.tolist() == [250, 250]                     # sin = 0 at t = 0, 4 mod 8 (cos = ±1)
    assert np.sum(np.isfinite(values[0])) == 8 and set(np.round(values[0], 12)) <= {1.0, -1.0}
    assert distinct.tolist() == [2, 2]
    assert out["distinct"][0, 2] == 1 and out["distinct"][0, 0] == 5    # cos over 8 phases: 5 values
    series[5, 0] = np.nan
    assert reduce_points(series[None], spec)["distinct"][0].tolist() == [-1, -1, -1]


def cluster_run(**table):
    """The tiny run with a [cluster] table of ``table`` (TOML values written by hand: strings, ints, lists)."""
    lines = [f"{k} = {v!r}".replace("'", '"') if not isinstance(v, dict) else
             f"{k} = {{ {', '.join(f'{a} = {b!r}' for a, b in v.items())} }}".replace("'", '"')
             for k, v in table.items()]
    return mf.load_run(tiny_text() + "\n[cluster]\n" + "\n".join(lines) + "\n")


def test_slurm_job_script_from_cluster_table():
    pytest.importorskip("dask_jobqueue")
    from dask_jobqueue import SLURMCluster
    run = cluster_run(kind="slurm", cores=8, memory="16GB", walltime="1-02:00:00", queue="compute",
                      account="proj42", lifetime="25h", lifetime_stagger="10m", job_extra=["--gres=gpu:1"],
                      log_directory="slurm-logs", scheduler_options={"host": "127.0.0.1"})
    kwargs = slurm_kwargs(run.cluster_spec, "meanfield-test")
    assert kwargs["scheduler_options"] == {"dashboard_address": "127.0.0.1:0", "host": "127.0.0.1"}
    with SLURMCluster(**kwargs) as c:
        script = c.job_script()
    # 25 h = 90000 s, 10 min = 600 s; one single-threaded worker process per core; no restart inside the job;
    # workers whose scheduler is gone for a minute exit
    for needle in ("#SBATCH --cpus-per-task=8", "#SBATCH -t 1-02:00:00", "#SBATCH -p compute", "#SBATCH -A proj42",
                   "#SBATCH -J meanfield-test", "#SBATCH --gres=gpu:1", "#SBATCH -o slurm-logs/meanfield-test-%J.out",
                   "--lifetime 90000s", "--lifetime-stagger 600s", "--nworkers 8", "--nthreads 1", "--death-timeout 60",
                   "NUMBA_NUM_THREADS=1", "MALLOC_TRIM_THRESHOLD_=134217728", "MALLOC_MMAP_THRESHOLD_=33554432"):
        assert needle in script, needle
    assert "--lifetime-restart" not in script
    assert "#SBATCH --mem=15G" in script or "#SBATCH --mem=16G" in script


@pytest.mark.parametrize("walltime, seconds", [("1h", 3600), ("90m", 5400), ("2 days", 172800), ("45:00", 2700),
                                               ("01:30:00", 5400), ("2-00", 172800), ("2-01:30", 178200),
                                               ("1-00:00:30", 86430)])
def test_walltime_forms(walltime, seconds):
    spec = cluster_run(walltime=walltime).cluster_spec
    assert spec.walltime == seconds
    # default: workers retire by a fifth of the walltime (at most 5 min) before SLURM's limit
    assert spec.lifetime + spec.lifetime_stagger == seconds - min(300, seconds / 5)


@pytest.mark.parametrize("table, words", [
    ({"kind": "pbs"}, ["cluster.kind", "'pbs'", "slurm"]),
    ({"walltime": "30"}, ["cluster.walltime", "'30'", "ambiguous"]),
    ({"walltime": "1 fortnight"}, ["cluster.walltime", "fortnight", "[D-]HH:MM:SS"]),
    ({"walltime": "00:10:00", "lifetime": "580s"}, ["cluster.lifetime", "'580s'", "walltime"]),
    ({"lifetime_stagger": "2h"}, ["cluster.lifetime_stagger", "'2h'"]),
    ({"cores": 4, "processes": 3}, ["cluster.processes", "3", "divide"]),
    ({"cores": 0}, ["cluster.cores", "0", ">= 1"]),
    ({"jobs": 4, "max_jobs": 2}, ["cluster.max_jobs", "2", ">= 4"]),
    ({"kind": "slurm", "workers": 3}, ["cluster.workers", "3", "jobs"]),
    ({"memory": "lots"}, ["cluster.memory", "'lots'", "4GB"]),
    ({"job_extra": "--gres=gpu:1"}, ["cluster.job_extra", "list"]),
    ({"scheduler_options": {"dashboard": ":8787"}}, ["cluster.scheduler_options", "dashboard", "dashboard_address"]),
    ({"scheduler_options": {"port": -1}}, ["cluster.scheduler_options.port", "-1"]),
    ({"patience": "soon"}, ["cluster.patience", "soon"]),
])
def test_bad_cluster_values_are_named(table, words):
    with pytest.raises(ConfigError) as err:
        cluster_run(**table)
    assert all(w in str(err.value) for w in words) and balanced_quotes(str(err.value)), str(err.value)


def test_replace_and_overrides_revalidate():
    run = mf.load_run(os.path.join(RUNS, "continuation_demo.toml"))
    assert run.replace().result_key() == run.result_key()
    small = run.replace(grid={"beta_o": [1.25, 1.26, 1.27, 1.28]}, steps=300)
    assert (small.n_points, small.steps, small.start.kind) == (4, 300, "token")
    with pytest.raises(ConfigError, match="transient"):
        run.replace(transient=run.steps)
    assert mf.load_run(os.path.join(RUNS, "paper_fig3_quick.toml"), steps=30000).steps == 30000
