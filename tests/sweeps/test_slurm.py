"""Sweeps on a real SLURM (slurmctld and slurmd; `.ci/slurm-up` starts a single-node one as root): jobs give the
LocalCluster's arrays bit for bit, also across successive jobs of a sweep longer than their walltime and after
`scancel` of a job; a job SLURM can
never start ends the sweep with the watchdog's line; SIGTERM leaves no job behind; `srun` + SLURMRunner
resumes a file. Skipped, with the reason, when no SLURM answers. Sizes are small: the kernel comes from numba's
disk cache in every worker."""
from __future__ import annotations

import getpass
import glob
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import threading
import time

import h5py
import numpy as np
import pytest

import meanfield as mf
from meanfield.sweeps.store.journal import journal_path, read_journal

from .helpers import BIN, assert_same, done_count, interrupted_sweep, read_all, tiny_text

pytestmark = [pytest.mark.slurm, pytest.mark.dask]
#: The test cluster's scheduler listens on the loopback interface, like the single node.
SCHEDULER = "scheduler_options = { host = '127.0.0.1', dashboard_address = '127.0.0.1:0' }"


def _no_slurm() -> str | None:
    """Why no SLURM is reachable, or None."""
    if shutil.which("sinfo") is None or shutil.which("sbatch") is None:
        return "the SLURM commands (sinfo, sbatch) are not on PATH"
    try:
        out = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "sinfo did not answer within 20 s"
    if out.returncode:
        return f"sinfo failed: {out.stderr.strip()}"
    if not {"idle", "mixed", "allocated"} & set(out.stdout.split()):
        return f"no node is up (sinfo: {' '.join(out.stdout.split()) or 'no nodes'})"
    if importlib.util.find_spec("dask_jobqueue") is None:
        return "dask-jobqueue is not installed"
    return None


@pytest.fixture(scope="module")
def slurm():
    """The largest node's CPU count; skips the module when no SLURM is reachable."""
    reason = _no_slurm()
    if reason:
        pytest.skip(f"no SLURM reachable: {reason} (`.ci/slurm-up DIR` starts one, as root)")
    out = subprocess.run(["sinfo", "-h", "-N", "-o", "%c"], capture_output=True, text=True, check=True).stdout
    return max(int(c.rstrip("+")) for c in out.split())


def slurm_text(text: str, logs, **table) -> str:
    """``text`` with a [cluster] table for this machine's SLURM: kind slurm, 1 core and 1 GB per job."""
    lines = [f"{k} = {v!r}".replace("'", '"') for k, v in {"kind": "slurm", "cores": 1, "memory": "1GB",
                                                              "log_directory": str(logs), **table}.items()]
    return text + "\n[cluster]\n" + "\n".join(lines) + "\n" + SCHEDULER + "\n"


def local(text: str, path, workers: int = 2) -> dict:
    """The LocalCluster's arrays of ``text`` (the reference every SLURM run must equal bit for bit)."""
    mf.sweep(text, path, place=mf.Place(workers=workers), progress=False)
    return read_all(path)


#: The quick sweep of the two-job and the srun tests.
QUICK = tiny_text(num=24, steps=2000, transient=500, chunk=2)


@pytest.fixture
def two_cpus(slurm):
    """Tests that run two one-core jobs side by side need a node with two CPUs."""
    if slurm < 2:
        pytest.skip(f"the largest SLURM node has {slurm} CPU; two one-core jobs need 2")


@pytest.fixture(scope="module")
def quick(slurm, tmp_path_factory):
    """The LocalCluster's arrays of :data:`QUICK`."""
    return local(QUICK, tmp_path_factory.mktemp("quick") / "local.h5")


def cli(run_file, out, *extra) -> list:
    return [f"{BIN}/meanfield", "sweep", str(run_file), "-o", str(out), "--no-progress", *extra]


def live_jobs() -> list:
    """This user's meanfield jobs that are queued, running or completing."""
    out = subprocess.run(["squeue", "-h", "-u", getpass.getuser(), "-o", "%i %j %T"], capture_output=True,
                         text=True, check=True).stdout
    return [line for line in out.splitlines() if " meanfield-" in line]


def wait_until(condition, what: str):
    """Until ``condition()`` holds (``what`` it waits for); no clock decides: a hang is stopped by pytest-timeout."""
    while not condition():
        time.sleep(0.2)


def job_ids(logs) -> set:
    """SLURM job ids that ran a worker of the sweep (dask-jobqueue names the logs <job name>-<id>.err)."""
    return {re.search(r"-(\d+)\.err$", path).group(1) for path in glob.glob(os.path.join(logs, "*.err"))}


def test_two_jobs_equal_local_bitwise(two_cpus, quick, tmp_path):
    (tmp_path / "run.toml").write_text(slurm_text(QUICK, tmp_path / "logs", jobs=2, walltime="10m"))
    done = subprocess.run(cli(tmp_path / "run.toml", tmp_path / "slurm.h5"), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_same(read_all(tmp_path / "slurm.h5"), quick)
    assert len(job_ids(tmp_path / "logs")) == 2
    wait_until(lambda: not live_jobs(), "the sweep's jobs leave the queue")


def succession_sweep(n_chunks: int, chunk: int, directory) -> tuple:
    """A sweep of ``n_chunks`` chunks of ``chunk`` points (160 000 steps with 12 exponents each) on one SLURM job of
    walltime 1 min at a time whose worker retires after 20 ± 3 s, beside the same sweep on a LocalCluster of one
    worker: (the SLURM run's arrays, the LocalCluster's, the job ids, the workers' logs, what a watcher saw: the
    points done in the file while each job was RUNNING, {job id: [done counts]}, sampled every 0.2 s by squeue)."""
    text = tiny_text(num=n_chunks * chunk, steps=160_000, transient=40_000, lyapunov=12, chunk=chunk)
    logs = directory / "logs"
    (directory / "run.toml").write_text(slurm_text(text, logs, jobs=1, walltime="1m", lifetime="20s",
                                                   lifetime_stagger="3s", patience="5m"))
    proc = subprocess.Popen(cli(directory / "run.toml", directory / "slurm.h5"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    seen, stop = {}, threading.Event()

    def watch():
        while not stop.is_set():
            running = [line.split()[0] for line in live_jobs() if line.endswith("RUNNING")]
            try:                                     # a read that meets the file mid-write is skipped, not a 0
                with h5py.File(directory / "slurm.h5", "r", locking=False) as f:
                    done = int(f["done"][...].sum())
            except (OSError, KeyError):
                done = None
            for job in running if done is not None else ():
                seen.setdefault(job, []).append(done)
            stop.wait(0.2)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        reference = local(text, directory / "local.h5", workers=1)   # meanwhile, on the other core
        _, stderr = proc.communicate()
    finally:
        stop.set()
        watcher.join()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    logged = "".join(open(path).read() for path in glob.glob(os.path.join(logs, "*.err")))
    return read_all(directory / "slurm.h5"), reference, job_ids(logs), logged, seen


def journal_points(path) -> np.ndarray:
    """The flat point indices of every record in the journal of the sweep file ``path``, in journal order, a point
    as many times as it was stored."""
    contents = read_journal(journal_path(path))
    indices = [index for index, _ in contents.records(())] + [r["index"] for r in contents.index_records()]
    assert contents.dropped == 0 and indices
    return np.concatenate(indices)


def test_a_sweep_longer_than_its_walltime_is_served_by_successive_jobs_and_equals_local(slurm, tmp_path):
    """A sweep that outlasts its jobs (walltime 1 min, the worker retiring after 20 ± 3 s) is served by successive
    jobs, none killed by SLURM, and equals the LocalCluster's arrays. No clock decides: the sweep starts at 36 chunks
    of 64 points (83–96 s of one core on this project's VM, 7 jobs) and doubles, at most twice, until it needed at
    least three jobs, so a faster machine runs a longer sweep, not a different test. A retiring worker ends its job
    only once its running chunk is done (the kernel does not stop mid-call), so the 37 s left to the walltime hold
    the worker's start-up and one chunk (2.3–2.7 s on that VM) even on a loaded machine.

    What happened is then checked apart from the loop's exit: a watcher (squeue and the file's done count every
    0.2 s) saw points stored while each of at least three distinct jobs was RUNNING, every point lies in the
    journal exactly once (a job that restarted the sweep, or a retired worker's chunk stored twice, would store
    points again) and the file's done count went up from one job to the next, never back to 0 (the succession
    resumed the file rather than restarted it)."""
    chunk = 64                                                   # a chunk is one tile of the CPU kernel
    for n_chunks in (36, 72, 144):                               # 83–96 s of one core, then 2x, 4x
        directory = tmp_path / f"{n_chunks}_chunks"
        directory.mkdir()
        ours, reference, jobs, logged, seen = succession_sweep(n_chunks, chunk, directory)
        assert_same(ours, reference)
        assert "DUE TO TIME LIMIT" not in logged
        if len(jobs) >= 3:
            break                                                # else done within two worker lifetimes: longer
    print(f"job succession: {n_chunks * chunk} points, jobs {sorted(jobs, key=int)}, done counts seen while "
          f"running {({job: (min(d), max(d)) for job, d in seen.items()})}")
    assert len(jobs) >= 3, f"{n_chunks * chunk} points needed only the jobs {sorted(jobs)}"
    assert "worker-lifetime-reached" in logged
    # the jobs that stored points, from the watcher alone: the done count rose while the job was RUNNING
    storing = sorted((job for job, done in seen.items() if max(done) > min(done)), key=int)
    assert len(storing) >= 3 and set(storing) <= jobs, (storing, sorted(jobs))
    # resumed, not restarted: each later job started from at least what the earlier ones had left done
    starts = [min(seen[job]) for job in storing]
    assert starts == sorted(starts) and all(min(seen[job]) >= max(seen[earlier]) - chunk
                                            for earlier, job in zip(storing, storing[1:])), seen
    stored = journal_points(directory / "slurm.h5")
    assert np.array_equal(np.sort(stored), np.arange(n_chunks * chunk)), "a point stored twice or never"


def test_scancel_of_a_job_mid_run_changes_nothing(two_cpus, tmp_path):
    text = tiny_text(num=24, steps=60000, transient=10000, lyapunov=12, chunk=1)
    logs = tmp_path / "logs"
    (tmp_path / "run.toml").write_text(slurm_text(text, logs, jobs=2, walltime="10m"))
    out = tmp_path / "slurm.h5"
    proc = subprocess.Popen(cli(tmp_path / "run.toml", out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        wait_until(lambda: done_count(out) >= 2 or proc.poll() is not None, "two points written")
        running = [line.split()[0] for line in live_jobs() if line.endswith("RUNNING")]
        assert running and proc.poll() is None, "the sweep should still run on its jobs"
        subprocess.run(["scancel", running[0]], check=True)
        reference = local(text, tmp_path / "local.h5")
        _, stderr = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert_same(read_all(out), reference)
    assert running[0] not in {line.split()[0] for line in live_jobs()}


@pytest.mark.parametrize("case", ["more cores than any node", "no such partition"])
def test_a_job_slurm_can_never_start_is_reported_and_nothing_is_lost(case, slurm, tmp_path):
    """SLURM's verdict is final (a job pending for PartitionConfig; sbatch refusing an invalid partition): the
    watchdog stops at once, without waiting for the patience, with one line; the points already stored stay."""
    text = tiny_text(num=12, chunk=1)
    out = tmp_path / "partial.h5"

    interrupted_sweep(text, out, 4, place=mf.Place(workers=1))
    before = read_all(out)
    table, words = {"more cores than any node": ({"cores": slurm + 1}, ["can never start", f"cores = {slurm + 1}"]),
                    "no such partition": ({"queue": "nosuch"}, ["sbatch refuses", "partition"])}[case]
    # a patience of an hour: a watchdog that waited for it instead of acting on SLURM's verdict hangs the test
    # until pytest-timeout fails it
    (tmp_path / "run.toml").write_text(slurm_text(text, tmp_path / "logs", walltime="10m", patience="1h", **table))
    done = subprocess.run(cli(tmp_path / "run.toml", out), capture_output=True, text=True)
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words) and "4/12 points are stored" in lines[0], lines
    assert_same(read_all(out), before)
    wait_until(lambda: not live_jobs(), "the pending job is cancelled")


def test_sigterm_cancels_every_job_and_keeps_finished_chunks(two_cpus, tmp_path):
    text = tiny_text(num=40, steps=60000, transient=10000, lyapunov=12, chunk=1)
    (tmp_path / "run.toml").write_text(slurm_text(text, tmp_path / "logs", jobs=2, walltime="10m"))
    out = tmp_path / "slurm.h5"
    proc = subprocess.Popen(cli(tmp_path / "run.toml", out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        wait_until(lambda: done_count(out) >= 2 or proc.poll() is not None, "two points written")
        assert proc.poll() is None and len(live_jobs()) == 2
        os.kill(proc.pid, signal.SIGTERM)
        _, stderr = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in stderr, stderr
    assert "interrupted" in stderr
    # scancel ran before the client exited: nothing of the sweep is queued or running any more
    assert not [line for line in live_jobs() if not line.endswith("COMPLETING")]
    wait_until(lambda: not live_jobs(), "the cancelled jobs finish completing")
    assert 2 <= done_count(out) < 40


def test_srun_with_slurm_runner_resumes_the_same_file(slurm, quick, tmp_path):
    """`srun -n 3 meanfield sweep --runner slurm` (scheduler, client, one worker in one allocation) resumes a
    file a local sweep left half done and gives the LocalCluster's arrays."""
    out = tmp_path / "resumed.h5"

    interrupted_sweep(QUICK, out, 8, place=mf.Place(workers=1))
    (tmp_path / "run.toml").write_text(QUICK + f"\n[cluster]\nlog_directory = '{tmp_path / 'logs'}'\n{SCHEDULER}\n")
    done = subprocess.run(["srun", "-n", "3", "--overcommit", "-t", "10", *cli(tmp_path / "run.toml", out,
                                                                                  "--runner", "slurm")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout.count("wrote ") == 1                      # only the client rank writes
    assert_same(read_all(out), quick)
    assert not glob.glob(str(tmp_path / "logs" / "meanfield-scheduler-*.json"))


def test_a_census_on_two_jobs_equals_local_bitwise(two_cpus, tmp_path):
    from meanfield.sweeps.store.census import open_attractors

    from .test_census import CENSUS
    text = CENSUS.format(chunk=1)
    reference = local(text, tmp_path / "local.h5")
    (tmp_path / "run.toml").write_text(slurm_text(text, tmp_path / "logs", jobs=2, walltime="10m"))
    done = subprocess.run(cli(tmp_path / "run.toml", tmp_path / "slurm.h5"), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_same(read_all(tmp_path / "slurm.h5"), reference)
    for direction in ("up", "down"):
        ours, theirs = (open_attractors(tmp_path / name, direction) for name in ("slurm.h5", "local.h5"))
        for name in theirs.data_vars:
            np.testing.assert_array_equal(ours[name].values, theirs[name].values, err_msg=f"{direction}/{name}")
    wait_until(lambda: not live_jobs(), "the sweep's jobs leave the queue")


def test_a_basin_map_on_two_jobs_equals_local_bitwise(two_cpus, tmp_path):
    from meanfield.sweeps.store.basins import open_basins

    from .test_basins import BASINS
    text = BASINS.format(chunk=4)
    local(text, tmp_path / "local.h5")
    (tmp_path / "run.toml").write_text(slurm_text(text, tmp_path / "logs", jobs=2, walltime="10m"))
    done = subprocess.run(cli(tmp_path / "run.toml", tmp_path / "slurm.h5"), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ours, theirs = (open_basins(tmp_path / name) for name in ("slurm.h5", "local.h5"))
    assert ours.attrs["complete"]
    for name in theirs.data_vars:
        np.testing.assert_array_equal(ours[name].values, theirs[name].values, err_msg=name)
    wait_until(lambda: not live_jobs(), "the sweep's jobs leave the queue")
