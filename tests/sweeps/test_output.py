"""The output's life without a cluster: the writer lock (live, stale, foreign), bounds checked before
anything is written (grid size, task memory, disk space), paths that are directories. Fast."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import meanfield as mf
from meanfield.errors import ConfigError, StoreError
from meanfield.sweeps.config.tables import MAX_POINTS
from meanfield.sweeps.config.where import Place, where_to_compute
from meanfield.sweeps.execute.preflight import check_sweep
from meanfield.sweeps.store.lock import FileBusy, holder, writer_lock

from .helpers import tiny_text

#: A child process that takes the writer lock of argv[1], says so, and waits to be killed.
HOLD = """
import sys, time
from meanfield.sweeps.store.lock import writer_lock
with writer_lock(sys.argv[1]):
    print("locked", flush=True)
    time.sleep(120)
"""


@pytest.mark.system
def test_the_writer_lock_refuses_a_live_holder_and_takes_over_a_dead_one(tmp_path, capsys):
    out = tmp_path / "out.h5"
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        assert holder(out).pid == proc.pid
        with pytest.raises(FileBusy) as err:
            with writer_lock(out):
                pass
        host = os.uname().nodename
        assert str(err.value) == f"{out} is being written by meanfield sweep (pid {proc.pid}, host {host})"
        with pytest.raises(FileBusy):
            mf.sweep(tiny_text(), out, place=mf.Place(workers=1), progress=False)
        with pytest.raises(FileBusy):
            mf.sweeps.store.write_analysis(out, None, None, {})
    finally:
        proc.kill()                                   # SIGKILL: no cleanup, the lock file stays behind
        proc.wait()
    assert os.listdir(tmp_path) == ["out.h5.lock"] and holder(out) is None
    with writer_lock(out) as me:
        assert holder(out) == me and me.pid == os.getpid()
    assert os.listdir(tmp_path) == []
    assert f"removed the stale lock of pid {proc.pid}" in capsys.readouterr().err


def test_a_lock_from_another_host_is_respected(tmp_path):
    out = tmp_path / "out.h5"
    lock = {"host": "elsewhere", "pid": 1, "started": 0.0, "program": "meanfield sweep"}
    (tmp_path / "out.h5.lock").write_text(json.dumps(lock))
    with pytest.raises(FileBusy, match="pid 1, host elsewhere.*if no sweep is running on elsewhere, delete"):
        with writer_lock(out):
            pass
    (tmp_path / "out.h5.lock").write_text("{not json")
    with pytest.raises(FileBusy, match="not a meanfield lock file"):
        with writer_lock(out):
            pass


def test_grid_size_is_bounded_before_anything_is_allocated():
    text = tiny_text()
    line = "beta_o = { start = 1.0, stop = 2.6, num = 12 }"
    with pytest.raises(ConfigError, match="num"):
        mf.load_run(text.replace(line, "beta_o = { start = 1.0, stop = 2.6, num = 1000000000 }"))
    square = "beta_o = { start = 1.0, stop = 2.6, num = 10000 }\nbeta_att = { start = 1.0, stop = 3.0, num = 10000 }"
    with pytest.raises(ConfigError, match=f"100000000 points.*at most {MAX_POINTS}"):
        mf.load_run(text.replace(line, square))


def test_task_memory_is_bounded(tmp_path):
    """64 points x 10^7 recorded rows x 2 observables x 3 features x 8 bytes = 30 TB: no machine's worker."""
    run = mf.load_run(tiny_text(steps=10_000_000, transient=0, chunk=64))
    with pytest.raises(ConfigError, match="chunk = 64"):
        check_sweep(run, tmp_path / "out.h5", where_to_compute(run.cluster_spec, Place(workers=1)))
    assert os.listdir(tmp_path) == []


def test_disk_space_is_checked_before_the_file_is_created(tmp_path):
    """Tails of 10^4 rows x 6 observables x 3 features x 8 bytes = 1.44 MB per point, over twice the free
    space's worth of points."""
    free = shutil.disk_usage(tmp_path).free
    num = min(MAX_POINTS, int(2 * free / 1.44e6) + 1)
    text = tiny_text(num=num, steps=20000, transient=10000, chunk=1).replace(
        'observables = ["mo_se", "att"]\ntail = 5',
        'observables = ["att", "mo", "mo_se", "mv", "mq", "mk"]\ntail = 10000')
    run = mf.load_run(text)
    with pytest.raises(StoreError, match="free"):
        mf.sweep(run, tmp_path / "out.h5", place=mf.Place(workers=1), progress=False)
    assert os.listdir(tmp_path) == []


def test_a_directory_is_not_an_output(tmp_path, capsys):
    with pytest.raises(StoreError, match="is a directory") as err:
        mf.sweep(tiny_text(), tmp_path, place=mf.Place(workers=1), progress=False)
    assert "\n" not in str(err.value)
    from meanfield.cli import main
    assert main(["simulate", "--steps", "10", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a directory" in err
    assert os.listdir(tmp_path) == []


def test_missing_directories_are_created_only_after_the_checks(tmp_path):
    out = tmp_path / "new" / "deeper" / "out.h5"
    with pytest.raises(ConfigError, match="workers"):
        mf.sweep(tiny_text(), out, place=mf.Place(workers=0), progress=False)
    assert os.listdir(tmp_path) == []
