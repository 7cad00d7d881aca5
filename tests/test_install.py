"""The README's two set-up commands compose, in one fresh virtual environment and in that order: the quick start
(``pip install .``, then ``meanfield sweep`` of a Figure 3 run file, which compiles the kernels and, in the Dask
workers that classify the points, the analysis layer's numba functions; the installed package holds the shipped
run files, which run by name from any directory) followed by the test command's install (``pip install -e
".[test]"``). The first leaves no compiled code in the installed package, so the second leaves nothing of it
behind: ``import meanfield``, a Dask sweep on worker processes and ``meanfield info`` work from any
directory. numba's cache goes to the per-user directory (meanfield/compiled_cache.py, imported first by
meanfield/__init__.py), not into site-packages, where a regular install's leftovers would make ``meanfield`` a
namespace package that shadows the editable install, and which a cluster often mounts read-only."""
import json
import pathlib
import re
import subprocess

import pytest

from .test_readme import copy_repository, fresh_environment

pytestmark = [pytest.mark.slow, pytest.mark.system]      # fresh environments, processes

#: runs/paper_fig3_quick.toml made tiny (5 of its 401 values, 2000 of its 20 000 steps), its tables kept: the
#: full Lyapunov spectrum, the reductions, the checkpoint start, and the classification evidence every sweep
#: measures in its workers.
FIG3_TINY = """\
name = "fig3_tiny"
steps = 2000
transient = 1000
lyapunov = true
chunk = 4

[model]
preset = "paper"

[grid]
beta_o = { start = 0.5, stop = 2.5, num = 5 }

[record]
observables = ["mo_se"]
tail = 0

[reductions]
observable = "mo_se"
bins = 50
y_range = [-1.0, 1.0]
band_pairs = [[0, 1], [1, 0]]
band_tol = 0.001
band_cap = 16
levels = 101

[start]
kind = "checkpoint"
"""


def run(command, cwd, env):
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_quick_start_then_test_install_from_another_directory(tmp_path):
    repo, elsewhere, cache = tmp_path / "repo", tmp_path / "elsewhere", tmp_path / "user-cache"
    repo.mkdir()
    elsewhere.mkdir()
    copy_repository(repo)
    run_file = tmp_path / "fig3_tiny.toml"
    run_file.write_text(FIG3_TINY)
    env = fresh_environment(tmp_path)
    env.pop("NUMBA_CACHE_DIR", None)
    env["XDG_CACHE_HOME"] = str(cache)
    python = str(tmp_path / "venv" / "bin" / "python")
    meanfield = str(tmp_path / "venv" / "bin" / "meanfield")          # the installed command, not the README shim
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], repo, env).strip()
    installed = pathlib.Path(site) / "meanfield"

    # the quick start, as the README runs it from the checkout: install, then sweep on a local Dask cluster
    run([python, "-m", "pip", "install", "--quiet", "."], repo, env)
    run([meanfield, "sweep", str(run_file), "-o", "results/fig3_tiny.h5", "--plot", "results/fig3_tiny.png",
         "--no-progress"], repo, env)
    assert (repo / "results" / "fig3_tiny.png").is_file()
    compiled = sorted(str(p.relative_to(installed)) for p in installed.rglob("*") if p.suffix in (".nbi", ".nbc"))
    assert not compiled, f"numba wrote into the installed package: {compiled[:4]}"
    cached = [p.name for p in cache.rglob("*.nbi")]
    assert any(name.startswith("period.") for name in cached), f"no analysis function in the user cache: {cached}"

    # the shipped run files are in the installed package (regular files, not the checkout's link) and run by
    # name from any directory (made tiny with --set)
    assert (installed / "runs" / "paper_fig3_quick.toml").is_file()
    assert not (installed / "runs").is_symlink()
    listed = run([meanfield, "runs"], elsewhere, env)
    assert re.search(r"^paper_fig3_quick +QUICK version", listed, re.M) and "sigma_beta" in listed, listed
    tiny = ["--set", "grid.beta_o.num=2", "--set", "steps=2000", "--set", "transient=1000", "--set", "chunk=2"]
    run([meanfield, "sweep", "paper_fig3_quick", *tiny, "--workers", "1", "--no-progress"], elsewhere, env)
    assert (elsewhere / "results" / "paper_fig3_quick.h5").is_file()

    # the test command's install replaces the regular one without a trace
    run([python, "-m", "pip", "install", "--quiet", "-e", ".[test]"], repo, env)
    assert not installed.exists(), f"the regular install left {sorted(p.name for p in installed.rglob('*'))[:5]}"
    where = run([python, "-c", "import json, meanfield; print(json.dumps(meanfield.__file__))"], elsewhere, env)
    assert json.loads(where) == str(repo / "meanfield" / "__init__.py")

    # from another directory: a Dask sweep on two worker processes (they import meanfield.analysis), then info
    run([meanfield, "sweep", str(run_file), "-o", "b.h5", "--workers", "2", "--no-progress"], elsewhere, env)
    info = run([meanfield, "info", "b.h5"], elsewhere, env)
    assert "b.h5: sweep" in info and "points done: 5 / 5" in info and "local, 2 workers" in info, info
