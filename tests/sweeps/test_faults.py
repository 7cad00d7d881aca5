"""The fault corpus: bad settings, kills, concurrent writers, full disks and divergent points. The promise
under test is that an existing result is never lost and a stopped sweep, run again, gives what an
uninterrupted one gives (every stored array bitwise, and every attribute but the provenance). Sweeps run on
the session's external two-worker cluster, so no test here starts a cluster of its own."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis import LABELS
from meanfield.errors import MeanfieldError, StoreError
from meanfield.kernels.cuda import require_cuda
from meanfield.sweeps.execute.tasks import compute_chunk
from meanfield.sweeps.results.labels import point_labels

from .helpers import BIN, assert_same, done_count, interrupted_sweep, read_all, tiny_text

pytestmark = pytest.mark.dask
#: Attributes that differ between two runs of one spec by design (who wrote the file, and when).
PROVENANCE = {"created", "finished", "provenance"}
#: Big enough that a kill lands mid-sweep, small enough for seconds: 48 points of 4000 steps, one per task.
KILLED = tiny_text(num=48, steps=4000, transient=2000, lyapunov=3, chunk=1)


def attributes(path) -> dict:
    with h5py.File(path, "r", locking=False) as f:
        return {k: v for k, v in f.attrs.items() if k not in PROVENANCE}


def assert_same_file(path, expected):
    """Every per-point array bitwise, and every attribute but the provenance, as in the file ``expected``."""
    assert_same(read_all(path), read_all(expected))
    assert attributes(path) == attributes(expected)


def leftovers(directory) -> list:
    return sorted(name for name in os.listdir(directory) if name.endswith((".part", ".lock")) or ".lock." in name)


@pytest.fixture(scope="module")
def reference(client, tmp_path_factory):
    """Path of an uninterrupted sweep of ``text`` (external two-worker cluster), computed once per text."""
    base = tmp_path_factory.mktemp("faults_ref")
    cache = {}

    def get(text):
        if text not in cache:
            cache[text] = base / f"ref{len(cache)}.h5"
            mf.sweep(mf.load_run(text), cache[text], place=mf.Place(client=client), progress=False)
        return cache[text]
    return get


@pytest.fixture
def complete(reference, tmp_path):
    """A complete result file (a copy of the reference sweep of tiny_text()) and its bytes."""
    out = tmp_path / "out.h5"
    shutil.copy(reference(tiny_text()), out)
    return out, out.read_bytes()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gpu() -> bool:
    try:
        require_cuda()
    except MeanfieldError:
        return False
    return True


BAD_SETTINGS = {
    "cluster.walltime": (tiny_text() + "\n[cluster]\nwalltime = '90'\n", {}),     # SLURM: minutes; dask: seconds
    "cluster.memory": (tiny_text() + "\n[cluster]\nmemory = '4 GiBs'\n", {}),
    "cluster.lifetime": (tiny_text() + "\n[cluster]\nlifetime = 'soon'\n", {}),
    "backend": (tiny_text().replace("chunk = 4", "chunk = 4\nbackend = 'cuda'"), {}),
    "workers=-2": (tiny_text(), {"workers": -2}),
    "workers=0": (tiny_text(), {"workers": 0}),
    "workers=1.5": (tiny_text(), {"workers": 1.5}),
    "scheduler": (tiny_text(), {"scheduler": "unreachable"}),
}


@pytest.mark.parametrize("force", [False, True], ids=["resume", "force"])
@pytest.mark.parametrize("case", sorted(BAD_SETTINGS))
def test_bad_settings_leave_a_complete_file_unchanged(case, force, complete):
    out, before = complete
    text, kwargs = BAD_SETTINGS[case]
    if case == "backend" and _gpu():
        pytest.skip("this machine has a GPU: backend = 'cuda' is not a bad setting here")
    if kwargs.get("scheduler"):
        kwargs = {"scheduler": f"tcp://127.0.0.1:{closed_port()}"}
    key = case.split("=")[0].split(".")[-1]
    with pytest.raises(MeanfieldError) as err:          # a Place checks its fields when it is made
        place = mf.Place(**{k: v for k, v in kwargs.items() if k in ("workers", "scheduler")})
        mf.sweep(mf.load_run(text), out, overwrite=force, progress=False, place=place,
                 **{k: v for k, v in kwargs.items() if k not in ("workers", "scheduler")})
    message = str(err.value)
    assert "\n" not in message and key in message, message
    assert out.read_bytes() == before
    assert os.listdir(out.parent) == ["out.h5"]


@pytest.mark.parametrize("args", [["--workers", "-2"], ["--scheduler", "tcp://127.0.0.1:{port}"]],
                         ids=["workers", "scheduler"])
def test_bad_settings_on_the_command_line_are_one_line(args, complete, write_run):
    out, before = complete
    args = [a.format(port=closed_port()) for a in args]
    done = subprocess.run([f"{BIN}/meanfield", "sweep", write_run(tiny_text()), "-o", str(out), "--force", *args],
                          capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert args[0].lstrip("-") in done.stderr
    assert out.read_bytes() == before and leftovers(out.parent) == []


def test_a_file_holding_no_point_is_replaced(client, reference, tmp_path):
    """A run stopped before its first chunk leaves a 0-point file; the corrected run (here: another backend)
    replaces it instead of refusing it as 'another run spec'."""
    out = tmp_path / "out.h5"
    mf.sweeps.store.create_sweep(out, mf.load_run(tiny_text().replace("chunk = 4", "chunk = 4\nbackend = 'cuda'"))
                                 ).close()
    mf.sweep(tiny_text(), out, place=mf.Place(client=client), progress=False)
    assert_same_file(out, reference(tiny_text()))


def test_an_unreadable_file_says_how_to_recover(client, reference, tmp_path):
    out = tmp_path / "out.h5"
    out.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(200))           # an HDF5 signature and nothing after it
    with pytest.raises(StoreError) as err:
        mf.sweep(tiny_text(), out, place=mf.Place(client=client), progress=False)
    assert "delete it" in str(err.value) and "--force" in str(err.value) and "\n" not in str(err.value)
    assert out.read_bytes() == b"\x89HDF\r\n\x1a\n" + bytes(200)
    mf.sweep(tiny_text(), out, place=mf.Place(client=client), progress=False, overwrite=True)
    assert_same_file(out, reference(tiny_text()))
    assert leftovers(tmp_path) == []


def test_force_replaces_the_old_file_only_when_finished(client, reference, complete, capsys):
    out, before = complete
    new = tiny_text(steps=500)

    interrupted_sweep(new, out, 5, place=mf.Place(client=client), overwrite=True)
    assert out.read_bytes() == before
    message = capsys.readouterr().err
    assert f"{out} is unchanged" in message and f"{out}.part" in message
    assert leftovers(out.parent) == ["out.h5.part"]
    mf.sweep(new, out, place=mf.Place(client=client), progress=False, overwrite=True)      # the same command continues
    assert_same_file(out, reference(new))
    assert leftovers(out.parent) == []


def _cli(run_file, out, address, *extra):
    return subprocess.Popen([f"{BIN}/meanfield", "sweep", run_file, "-o", str(out), "--scheduler", address,
                             "--no-progress", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _kill_after(proc, lock, delay):
    """SIGKILL ``proc`` ``delay`` s after its lock file appears (it is about to create or resume the file)."""
    while not os.path.exists(lock) and proc.poll() is None:      # a hang is stopped by pytest-timeout
        time.sleep(0.005)
    time.sleep(delay)
    proc.kill()
    proc.wait()


#: Kills a client while it creates the file: its allocation of the n-th dataset never returns.
KILL_IN_CREATION = """
import os, signal, sys
from meanfield.cli import main
from meanfield.sweeps.store import sweep as store
allocate, count = store._allocate, [0]
def dying(*args):
    count[0] += 1
    if count[0] == int(os.environ["KILL_AT"]):
        os.kill(os.getpid(), signal.SIGKILL)
    return allocate(*args)
store._allocate = dying
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_sigkill_at_random_moments_then_resume_is_identical(external_cluster, client, reference, write_run, tmp_path):
    out = tmp_path / "out.h5"
    run_file = write_run(KILLED)
    for at in (1, 9):                                       # during the creation of the file
        proc = subprocess.run([sys.executable, "-c", KILL_IN_CREATION, "sweep", run_file, "-o", str(out),
                               "--scheduler", external_cluster, "--no-progress"],
                              env=dict(os.environ, KILL_AT=str(at)), capture_output=True)
        assert proc.returncode == -signal.SIGKILL
        assert not out.exists(), "a killed creation must not leave OUT.h5"
    rng = np.random.default_rng(16)
    for delay in rng.uniform(0.0, 0.6, size=4):             # from creation to mid-sweep
        _kill_after(_cli(run_file, out, external_cluster), f"{out}.lock", delay)
    mf.sweep(KILLED, out, place=mf.Place(client=client), progress=False)
    assert_same_file(out, reference(KILLED))
    assert leftovers(tmp_path) == []


#: A sweep whose file is compressed (raw 10 MB: tails of 2000 rows of two observables, docs/storage.md §3).
KILLED_COMPRESSED = tiny_text(num=104, steps=2400, transient=400, lyapunov="false", chunk=4).replace("tail = 5",
                                                                                                "tail = 2000")


@pytest.mark.slow
def test_sigkill_of_a_compressed_sweep_then_resume_is_identical(external_cluster, client, reference, write_run,
                                                                tmp_path):
    """Killed while it is created, then as soon as 4, 24 and 52 of its 104 points are stored (its chunks are
    allocated mid-run: HDF5 metadata written then), the file is resumed or rebuilt from its journal, bitwise the
    uninterrupted run's. The kills follow the sweep's progress, not a clock."""
    from meanfield.sweeps.store import raw_nbytes
    from meanfield.sweeps.store.chunks import COMPRESS_FROM_BYTES
    assert raw_nbytes(mf.load_run(KILLED_COMPRESSED)) >= COMPRESS_FROM_BYTES
    out = tmp_path / "out.h5"
    run_file = write_run(KILLED_COMPRESSED)
    _kill_after(_cli(run_file, out, external_cluster), f"{out}.lock", 0.0)     # while the file is created
    stopped_midway = 0
    for points in (4, 24, 52):                                   # then once that many points are stored
        proc = _cli(run_file, out, external_cluster)
        while proc.poll() is None and done_count(out) < points:
            time.sleep(0.002)
        proc.kill()
        proc.wait()
        stopped_midway += done_count(out) < 104                  # unreadable (being rebuilt) counts as 0
    assert stopped_midway >= 2, "the kills all came after the sweep ended: they test nothing"
    mf.sweep(KILLED_COMPRESSED, out, place=mf.Place(client=client), progress=False)
    with h5py.File(out, "r") as f:
        assert f["tail_att"].compression == "gzip"
    assert_same_file(out, reference(KILLED_COMPRESSED))
    assert leftovers(tmp_path) == []


@pytest.mark.slow
def test_sigkill_during_force_keeps_the_old_file(external_cluster, client, reference, complete, write_run):
    out, before = complete
    run_file = write_run(KILLED)
    for delay in np.random.default_rng(61).uniform(0.0, 0.6, size=2):
        _kill_after(_cli(run_file, out, external_cluster, "--force"), f"{out}.lock", delay)
        assert out.read_bytes() == before
    mf.sweep(KILLED, out, place=mf.Place(client=client), progress=False, overwrite=True)
    assert_same_file(out, reference(KILLED))
    assert leftovers(out.parent) == []


@pytest.mark.parametrize("hdf5_locking", ["TRUE", "FALSE"])
def test_a_second_writer_is_refused(hdf5_locking, external_cluster, write_run, tmp_path, monkeypatch, capsys):
    """While one sweep writes OUT.h5, a second gets the lock message (HDF5's file lock on or off), `info` and
    `analyze` read the finished points without writing; the first sweep, stopped by Ctrl-C, leaves a file
    whose finished points are those of a fresh computation."""
    monkeypatch.setenv("HDF5_USE_FILE_LOCKING", hdf5_locking)
    text = tiny_text(num=200, steps=60000, transient=59000, lyapunov=12, chunk=1)     # ~10 s: stopped early
    run_file, out = write_run(text), tmp_path / "out.h5"
    first = _cli(run_file, out, external_cluster)
    while first.poll() is None:                                   # a hang is stopped by pytest-timeout
        try:
            with h5py.File(out, "r", locking=False) as f:
                if f["done"][...].sum() >= 2:
                    break
        except (OSError, KeyError):
            pass
        time.sleep(0.02)
    from meanfield.cli import main
    assert main(["sweep", run_file, "-o", str(out), "--scheduler", external_cluster]) == 2
    assert main(["info", str(out)]) == 0
    assert main(["analyze", str(out)]) == 0
    assert first.poll() is None, f"the first sweep ended before the second writer tried: {first.stderr.read()}"
    first.send_signal(signal.SIGINT)
    first.wait()
    stopped = first.stderr.read()
    assert first.returncode == 130, stopped
    captured = capsys.readouterr()
    pid = f"(pid {first.pid}, host {os.uname().nodename})"
    assert captured.err.strip() == f"meanfield sweep: error: {out} is being written by meanfield sweep {pid}"
    assert captured.out.count(f"is being written by meanfield sweep {pid}") == 2      # info and analyze
    assert f"points are stored in {out}; run again to resume" in stopped
    stored = read_all(out)
    with h5py.File(out, "r") as f:
        assert "analysis" not in f
    sample = np.flatnonzero(stored["done"])[[0, -1]]
    fresh = compute_chunk(mf.load_run(text), sample, np.full(len(sample), -1))
    for name, values in stored.items():
        if name not in ("done", "checksum"):         # the checksums are the store's, not computed numbers
            np.testing.assert_array_equal(values[sample], fresh[name], err_msg=name)
    mf.sweeps.store.verify.verify_file(out)
    assert leftovers(tmp_path) == []


def test_a_full_disk_during_creation_leaves_nothing(external_cluster, write_run, tmp_path):
    out = tmp_path / "out.h5"
    run_file = write_run(tiny_text())
    done = subprocess.run(["bash", "-c", 'ulimit -f 16 && exec "$@"', "-", f"{BIN}/meanfield", "sweep", run_file,
                           "-o", str(out), "--scheduler", external_cluster, "--no-progress"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "File too large" in done.stderr
    assert not out.exists() and leftovers(tmp_path) == []


def test_a_full_disk_while_simulating_leaves_nothing(tmp_path):
    """A trajectory file larger than the file-size limit: one line, exit 2, no file."""
    mf.simulate(mf.presets.paper(), 3000, 0)                   # the kernel is cached before the limit applies
    out = tmp_path / "traj.h5"
    done = subprocess.run(["bash", "-c", 'ulimit -f 64 && exec "$@"', "-", f"{BIN}/meanfield", "simulate",
                           "--steps", "3000", "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "traj.h5" in done.stderr and "File too large" in done.stderr
    assert os.listdir(tmp_path) == []


def test_divergent_points_are_labelled_and_drawn(client, tmp_path):
    """A grid over K_P crossing the loop's stability limit (K_P > 1 diverges, docs/model.md §5.3): the
    divergent points have a divergence step, the label `divergent`, and a red column in both forms of the
    bifurcation diagram."""
    from meanfield.plots.sweep import bifurcation_figure
    text = tiny_text(num=2).replace("beta_o = { start = 1.0, stop = 2.6, num = 2 }", '"control.kp" = [0.2, 0.6, 3.0]')
    out = tmp_path / "kp.h5"
    mf.sweep(text, out, place=mf.Place(client=client), progress=False)
    with h5py.File(out, "r") as f:
        diverged = f["diverged_at"][...]
    assert diverged[:2].tolist() == [-1, -1] and diverged[2] >= 0
    codes = point_labels(out)[0]
    assert codes[2] == LABELS.index("divergent") and LABELS.index("divergent") not in codes[:2]
    fig = bifurcation_figure(mf.sweep_results(out))
    for ax in fig.axes[:2]:
        columns = [p for p in ax.patches if p.get_label() == "divergent"]
        assert len(columns) == 1
        x0, _, width, _ = columns[0].get_bbox().bounds
        assert x0 < 3.0 < x0 + width
