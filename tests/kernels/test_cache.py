"""numba's disk cache lives in a per-user directory, never in the installed package (meanfield/compiled_cache.py):
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


COPY_CHILD = """
import numpy as np
from meanfield.kernels import cpu
from meanfield.kernels.finite import mix64
exp, tanh, log = cpu.MATH_LIBRARIES["lane"](cpu._cached("copies", forceinline=True))
print(tanh(0.5), mix64(np.uint64(1)))        # a closure whose cells are dispatchers, and a plain function
"""


def test_copies_of_the_package_share_their_compiled_code(tmp_path):
    """Two copies of the package at different paths (a clone and an install, a test's fresh copy): what the
    first compiled the second loads, nothing compiled again; a copy whose source differs compiles its own."""
    import shutil
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + "/meanfield"
    for copy in ("first", "second", "edited"):
        shutil.copytree(package, tmp_path / copy / "meanfield", ignore=shutil.ignore_patterns("__pycache__"))
    with open(tmp_path / "edited" / "meanfield" / "kernels" / "lane_math.py", "a") as handle:
        handle.write("\n# an edit\n")

    def run(copy):
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "NUMBA_DEBUG_CACHE": "1",
               "PYTHONPATH": str(tmp_path / copy)}
        done = subprocess.run([sys.executable, "-c", COPY_CHILD], env=env, capture_output=True, text=True,
                              cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert str(tmp_path / copy) in subprocess.run(
            [sys.executable, "-c", "import meanfield; print(meanfield.__file__)"], env=env, capture_output=True,
            text=True, cwd=tmp_path).stdout
        return done.stdout

    first, second, edited = run("first"), run("second"), run("edited")
    assert "data saved" in first and "data loaded" not in first
    assert "data saved" not in second and second.count("data loaded") >= 2
    assert first.splitlines()[-1] == second.splitlines()[-1]
    assert "lane_math" in "".join(line for line in edited.splitlines() if "data saved" in line)


USER_MAPS = """
import numba


@numba.njit(cache=True)
def logistic(x, p, out):
    out[0] = RATE * x[0] * (1.0 - x[0])


@numba.njit(cache=True)
def logistic_jacobian(x, p, out):
    out[0, 0] = RATE * (1.0 - 2.0 * x[0])


def scaled(c):
    @numba.njit(cache=True)
    def step(x, p, out):
        out[0] = c * x[0] * (1.0 - x[0])

    @numba.njit(cache=True)
    def jacobian(x, p, out):
        out[0, 0] = c * (1.0 - 2.0 * x[0])
    return step, jacobian
"""

MAPS_CHILD = """
import json
import user_maps
from meanfield.analysis import lyapunov_spectrum
from meanfield.analysis.lyapunov import _benettin
maps = {"module": (user_maps.logistic, user_maps.logistic_jacobian), "3.7": user_maps.scaled(3.7),
        "3.9": user_maps.scaled(3.9)}
out = {name: lyapunov_spectrum(step, jacobian, [0.3], 4000, params=[]).exponents[0].hex()
       for name, (step, jacobian) in maps.items()}
print(json.dumps({"exponents": out, "hits": sum(_benettin.stats.cache_hits.values()),
                  "misses": sum(_benettin.stats.cache_misses.values())}))
"""


def test_a_users_maps_compile_their_drivers_once(tmp_path):
    """A map handed to a driver (here the Lyapunov driver) is keyed by its module, code, file and closure: a second
    process loads what the first compiled; closures with other constants, and a map whose file changed, get their
    own entries (numba's own key names the process's function object and never matches again), and an edit of the
map's file compiles its maps' drivers again."""
    def run(rate):
        (tmp_path / "user_maps.py").write_text(f"RATE = {rate}\n" + USER_MAPS)
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
        done = subprocess.run([sys.executable, "-c", MAPS_CHILD], env=env, capture_output=True, text=True,
                              cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    first, second, edited = run(3.7), run(3.7), run(3.8)
    assert (first["hits"], first["misses"]) == (0, 3) and (second["hits"], second["misses"]) == (3, 0)
    assert second["exponents"] == first["exponents"]
    assert first["exponents"]["module"] == first["exponents"]["3.7"] != first["exponents"]["3.9"]
    assert (edited["hits"], edited["misses"]) == (0, 3)        # every map of the edited file compiles again …
    assert edited["exponents"]["module"] != first["exponents"]["module"]     # … the edited one at its new rate
    assert {k: edited["exponents"][k] for k in ("3.7", "3.9")} == {k: first["exponents"][k] for k in ("3.7", "3.9")}
