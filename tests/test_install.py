"""The README's two set-up commands compose, in either order, in one fresh virtual environment: the quick start
(``pip install .``, then a command that compiles the kernels) followed by the test command's install
(``pip install -e ".[test]"``) leaves nothing of the regular install behind, so ``import meanfield`` and
``meanfield info`` work from any directory. numba's cache goes to the per-user directory
(meanfield/kernels/cache.py), not into site-packages, where a regular install's leftovers would shadow the
editable install and which a cluster often mounts read-only."""
import json
import pathlib
import subprocess

import pytest

from .test_readme import copy_repository, fresh_environment

pytestmark = pytest.mark.slow


def run(command, cwd, env):
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_quick_start_then_test_install_from_another_directory(tmp_path):
    repo, elsewhere, cache = tmp_path / "repo", tmp_path / "elsewhere", tmp_path / "user-cache"
    repo.mkdir()
    elsewhere.mkdir()
    copy_repository(repo)
    env = fresh_environment(tmp_path)
    env.pop("NUMBA_CACHE_DIR", None)
    env["XDG_CACHE_HOME"] = str(cache)
    python = str(tmp_path / "venv" / "bin" / "python")
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], repo, env).strip()
    installed = pathlib.Path(site) / "meanfield"

    run([python, "-m", "pip", "install", "--quiet", "."], repo, env)
    # the quick start's command compiles the kernels (a small run of it)
    run([python, "-m", "meanfield", "simulate", "--beta", "0.5", "--steps", "200", "-o", str(elsewhere / "a.h5")],
        elsewhere, env)
    compiled = [p for p in installed.rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert not compiled, f"numba wrote into the installed package: {compiled[:3]}"
    assert list(cache.rglob("*.nbi")), "nothing in the per-user numba cache"

    run([python, "-m", "pip", "install", "--quiet", "-e", ".[test]"], repo, env)
    assert not installed.exists(), f"the regular install left {sorted(p.name for p in installed.rglob('*'))[:5]}"
    where = run([python, "-c", "import json, meanfield; print(json.dumps(meanfield.__file__))"], elsewhere, env)
    assert json.loads(where) == str(repo / "meanfield" / "__init__.py")
    info = run([str(tmp_path / "venv" / "bin" / "meanfield"), "info", str(elsewhere / "a.h5")], elsewhere, env)
    assert "trajectory" in info
