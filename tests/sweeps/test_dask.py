"""Sweeps on Dask end to end: API and CLI, determinism, resume after SIGKILL / Ctrl-C / a killed worker,
an external scheduler. Worker processes compile the kernel once each, so the external
cluster is shared by the whole session."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

import meanfield as mf

from .helpers import BIN, assert_same, done_count, interrupted_sweep, read_all, tiny_text

pytestmark = pytest.mark.dask
CONT = "\n[continuation]\naxis = 'beta_o'\ndirection = 'both'\nchains = 3\npre_steps = 50\n"


@pytest.fixture(scope="module")
def reference(client, tmp_path_factory):
    """Uninterrupted sweeps (chunk 4, external two-worker cluster) of the tiny runs used below, by text."""
    base = tmp_path_factory.mktemp("ref")
    cache = {}

    def get(text):
        if text not in cache:
            path = base / f"ref{len(cache)}.h5"
            mf.sweep(mf.load_run(text), path, place=mf.Place(client=client), progress=False)
            cache[text] = read_all(path)
        return cache[text]
    return get


def test_api_sweep_reads_with_h5py_and_xarray(client, tmp_path):
    out = tmp_path / "api.h5"
    assert mf.sweep(tiny_text(), out, place=mf.Place(client=client), progress=False) == str(out)
    with h5py.File(out, "r") as f:
        assert f["done"][...].all() and f.attrs["kind"] == "sweep"
        assert f["lyapunov"].shape == (12, 3) and np.all(np.isfinite(f["lyapunov"][...]))
        assert np.all(np.diff(f["lyapunov"][...], axis=1) <= 0)
        assert f["tail_att"].shape == (12, 5, 3) and f["hist"][...].sum() == 12 * 200 * 3
        assert "tiny" in f.attrs["run_toml"] and json.loads(f.attrs["provenance"])[0]["meanfield_version"]
    ds = mf.open_run(out)
    try:
        assert ds.lyapunov.dims == ("beta_o", "exponent") and ds.hist.dims == ("beta_o", "feature", "ybin")
        assert ds.tail_mo_se.dims == ("beta_o", "tail_step", "feature")
        np.testing.assert_array_equal(ds.beta_o.values, np.linspace(1.0, 2.6, 12))
        assert ds.tail_step.values.tolist() == [395, 396, 397, 398, 399]
    finally:
        ds.close()
    # a single point of the sweep equals simulate() at that point
    model = mf.presets.paper(beta_o=float(np.linspace(1.0, 2.6, 12)[5]))
    traj = client.submit(mf.simulate, model, 400, 200, lyapunov=3, record=("mo_se", "att")).result()   # compiled there
    with h5py.File(out, "r") as f:
        np.testing.assert_array_equal(f["tail_att"][5], traj.att[-5:])
        np.testing.assert_array_equal(f["lyapunov"][5], traj.lyapunov)


@pytest.mark.parametrize("extra", ["", CONT], ids=["grid", "continuation"])
def test_chunk_size_does_not_change_results(client, reference, tmp_path, extra):
    for chunk in (1, 64):
        mf.sweep(tiny_text(chunk=chunk, extra=extra), tmp_path / f"c{chunk}.h5", place=mf.Place(client=client),
                 progress=False)
        assert_same(read_all(tmp_path / f"c{chunk}.h5"), reference(tiny_text(extra=extra)))


@pytest.mark.slow  # processes and clusters of their own: CI, not the fast loop
def test_cli_with_external_scheduler(external_cluster, reference, write_run, tmp_path):
    run_file = write_run(tiny_text())
    out = tmp_path / "cli.h5"
    cmd = [f"{BIN}/meanfield", "sweep", run_file, "-o", str(out), "--scheduler", external_cluster, "--no-progress",
           "--plot", str(tmp_path / "fig.png")]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_same(read_all(out), reference(tiny_text()))
    assert (tmp_path / "fig.png").stat().st_size > 1000
    info = subprocess.run([f"{BIN}/meanfield", "info", str(out)], capture_output=True, text=True)
    assert "points done: 12 / 12" in info.stdout and "axis beta_o: 12 values" in info.stdout
    again = subprocess.run(cmd[:-2] + ["--resume"], capture_output=True, text=True)
    assert again.returncode == 0 and read_all(out)["done"].all()
    bad = subprocess.run([f"{BIN}/meanfield", "sweep", write_run(tiny_text(steps=500), "other"), "-o", str(out),
                          "--scheduler", external_cluster], capture_output=True, text=True)
    assert bad.returncode == 2 and "another run spec" in bad.stderr


@pytest.mark.slow  # processes and clusters of their own: CI, not the fast loop
def test_resume_after_sigkill_of_the_client(external_cluster, client, reference, write_run, tmp_path):
    text = tiny_text(num=48, steps=20000, transient=5000, lyapunov=12, chunk=1)
    out = tmp_path / "killed.h5"
    proc = subprocess.Popen([f"{BIN}/meanfield", "sweep", write_run(text), "-o", str(out), "--scheduler",
                             external_cluster, "--no-progress"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while done_count(out) < 4 and proc.poll() is None:     # a hang is stopped by pytest-timeout, not a clock
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = read_all(out)                        # readable after SIGKILL; finished points are complete
    done = partial["done"].astype(bool)
    assert 0 < done.sum() < 48, "the kill should land mid-sweep"
    full = reference(text)
    for name, values in partial.items():
        np.testing.assert_array_equal(values[done], full[name][done], err_msg=name)
    mf.sweep(text, out, place=mf.Place(client=client), progress=False)
    assert_same(read_all(out), full)


def test_ctrl_c_then_resume_continuation(client, reference, tmp_path):
    text = tiny_text(num=24, chunk=1, extra=CONT)
    out = tmp_path / "interrupted.h5"

    interrupted_sweep(text, out, 7, place=mf.Place(client=client))
    assert 7 <= read_all(out)["done"].sum() < 24
    mf.sweep(text, out, place=mf.Place(client=client), progress=False)
    assert_same(read_all(out), reference(text))


@pytest.mark.slow  # processes and clusters of their own: CI, not the fast loop
def test_one_worker_equals_two_and_survives_its_own_death(reference, tmp_path):
    """A LocalCluster of ONE worker process gives the two-worker arrays; killing that worker mid-sweep (its
    nanny restarts it, the lost task is rescheduled) changes nothing either."""
    from dask.distributed import Client

    from meanfield.sweeps.execute.cluster import local_cluster
    text = tiny_text(num=32, steps=20000, transient=5000, lyapunov=12, chunk=1)
    killed = []
    with local_cluster(1) as cluster, Client(cluster) as c:
        mf.sweep(text, tmp_path / "one.h5", place=mf.Place(client=c), progress=False)
        assert_same(read_all(tmp_path / "one.h5"), reference(text))
        pid = next(iter(c.run(os.getpid).values()))

        def kill(done, total):
            if done >= 2 and not killed:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        mf.sweep(text, tmp_path / "killed.h5", place=mf.Place(client=c), progress=False, callback=kill)
        assert killed and next(iter(c.run(os.getpid).values())) != pid
    assert_same(read_all(tmp_path / "killed.h5"), reference(text))


#: ``meanfield sweep`` (``python -c GATED GATE_DIR sweep ...``) whose tasks pass a gate: the first
#: GATE_TOKENS tasks to start compute their chunk, every later one waits until GATE_DIR/open exists. A sweep
#: started this way finishes exactly GATE_TOKENS chunks and then waits, whatever the machine's speed. (Defined in
#: __main__, the task is pickled by value, so the worker processes need nothing of the test's.)
GATE_TOKENS = 2
GATED = f"""
import os, sys, time
from meanfield.cli import main
from meanfield.sweeps.execute import run
from meanfield.sweeps.execute.tasks import compute_chunk

GATE = sys.argv[1]


def gated_chunk(*args):
    claimed = False
    for n in range({GATE_TOKENS}):
        try:
            os.close(os.open(os.path.join(GATE, f"token{{n}}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            claimed = True
            break
        except FileExistsError:
            pass
    while not claimed and not os.path.exists(os.path.join(GATE, "open")):
        time.sleep(0.05)
    return compute_chunk(*args)


run.compute_chunk = gated_chunk
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.slow  # processes and clusters of their own: CI, not the fast loop
def test_ctrl_c_in_a_terminal_stops_without_worker_tracebacks(write_run, tmp_path):
    """A terminal's Ctrl-C signals the whole foreground process group: only the client may react (the local
    workers have left the group), so stderr holds meanfield's lines and no traceback. The sweep's tasks pass a
    gate (GATED): two chunks are written, then the workers wait inside their next tasks, so the Ctrl-C lands
    mid-sweep, with workers busy, and leaves exactly those two points."""
    out, gate = tmp_path / "ctrl_c.h5", tmp_path / "gate"
    gate.mkdir()
    text = tiny_text(num=40, steps=20000, transient=5000, lyapunov=12, chunk=1)
    proc = subprocess.Popen([sys.executable, "-c", GATED, str(gate), "sweep", write_run(text), "-o", str(out),
                             "--workers", "2", "--no-progress"], start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        while done_count(out) < GATE_TOKENS and proc.poll() is None:    # a hang: pytest-timeout stops it
            time.sleep(0.05)
        # the tokens are spent: no further chunk can finish, so the sweep cannot end before the Ctrl-C
        assert done_count(out) == GATE_TOKENS and proc.poll() is None, "the sweep should be waiting at the gate"
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate()
    finally:
        (gate / "open").touch()                     # whatever happened, no task waits any more
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130 and "Traceback" not in stderr, stderr
    assert "interrupted" in stderr and done_count(out) == GATE_TOKENS
    assert sorted(p.name for p in gate.iterdir()) == ["open", "token0", "token1"]


def _initial_environment():
    """The environment a process started with (what the C library's allocator read)."""
    with open("/proc/self/environ", "rb") as f:
        return dict(entry.decode().split("=", 1) for entry in f.read().split(b"\0") if b"=" in entry)


@pytest.mark.slow  # a cluster of its own: CI, not the fast loop
@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="needs Linux's /proc")
def test_local_workers_start_with_the_allocator_settings():
    """Worker processes start with ALLOCATOR_ENV in their initial environment, not Dask's
    MALLOC_TRIM_THRESHOLD_=65536 (docs/clusters.md, "Worker processes")."""
    from dask.distributed import Client

    from meanfield.sweeps.execute.cluster import local_cluster
    from meanfield.sweeps.execute.slurm import ALLOCATOR_ENV, WORKER_ENV
    with local_cluster(1) as cluster, Client(cluster) as c:
        (started,) = c.run(_initial_environment).values()
    assert started["MALLOC_TRIM_THRESHOLD_"] == str(128 << 20) and started["MALLOC_MMAP_THRESHOLD_"] == str(32 << 20)
    assert ALLOCATOR_ENV.items() <= WORKER_ENV.items()     # SLURM jobs export the same before their workers start
