"""numba's disk cache lives in a per-user directory, never in the installed package (meanfield/kernels/cache.py):
NUMBA_CACHE_DIR when the user set it, else $XDG_CACHE_HOME/meanfield/numba; set before any kernel is defined,
even when numba was imported first. Each check runs in a fresh interpreter, since the setting is made on
import."""
import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.system         # each check is a fresh interpreter

CHILD = """
import json, os, sys
if sys.argv[1] == "numba-first":
    import numba                                      # numba reads its environment now, before meanfield
import numpy as np
from numba.core import config
from meanfield.kernels.finite import mix64
mix64(np.uint64(1))                                   # compiles and writes the cache entry
print(json.dumps({"config": config.CACHE_DIR, "env": os.environ["NUMBA_CACHE_DIR"]}))
"""


def run_child(tmp_path, order="meanfield-first", **env):
    base = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    done = subprocess.run([sys.executable, "-c", CHILD, order], env={**base, **env}, capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def entries(directory):
    return sorted(p.name for p in directory.rglob("finite.mix64-*.nbi"))


def test_the_cache_goes_to_the_users_cache_directory(tmp_path):
    out = run_child(tmp_path, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    expected = str(tmp_path / "xdg" / "meanfield" / "numba")
    assert out == {"config": expected, "env": expected}
    assert entries(tmp_path / "xdg" / "meanfield" / "numba")


def test_numba_cache_dir_set_by_the_user_wins(tmp_path):
    mine = tmp_path / "mine"
    out = run_child(tmp_path, NUMBA_CACHE_DIR=str(mine), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert out == {"config": str(mine), "env": str(mine)}
    assert entries(mine) and not (tmp_path / "xdg").exists()


def test_numba_imported_first_still_caches_there(tmp_path):
    out = run_child(tmp_path, "numba-first", XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert out["config"] == str(tmp_path / "xdg" / "meanfield" / "numba")
    assert entries(tmp_path / "xdg")
