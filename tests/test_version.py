"""One version scheme: setuptools-scm counts commits from pyproject.toml's ``[tool.setuptools_scm]
fallback_version`` (0.1.dev0) while the history has no tag, so commit N reads 0.1.devN+g<commit>; the same
string is the version without git metadata, which meanfield/version.py reads in a checkout that was never
installed."""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

import meanfield

ROOT = pathlib.Path(__file__).resolve().parents[1]

# import meanfield.version from the copy, past an editable install's finder of this checkout
CHILD = """
import sys
sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
import meanfield.version
print(meanfield.version.__file__)
print(meanfield.version.__version__)
"""


@pytest.mark.system
def test_an_uninstalled_checkout_reports_pyprojects_fallback_version(tmp_path):
    shutil.copytree(ROOT / "meanfield", tmp_path / "meanfield", ignore=shutil.ignore_patterns("_version.py",
                                                                                               "__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    where, version = done.stdout.split()
    assert where == str(tmp_path / "meanfield" / "version.py")
    with open(ROOT / "pyproject.toml", "rb") as f:
        assert version == tomllib.load(f)["tool"]["setuptools_scm"]["fallback_version"] == "0.1.dev0"


def test_this_installation_follows_the_scheme():
    # installed from a git checkout (editable or not): 0.1.devN+g<commit>, .d<date> with local changes
    assert re.fullmatch(r"0\.1\.dev\d+\+g[0-9a-f]{7,}(\.d\d{8})?", meanfield.__version__), meanfield.__version__


@pytest.mark.slow
@pytest.mark.system
def test_a_history_without_tags_numbers_its_commits(tmp_path):
    """The package's metadata, as pip builds it (setuptools-scm, fetched like any install's build requirements),
    for a copy of the project whose git history is three commits and no tag: 0.1.dev3+g<third commit>."""
    shutil.copytree(ROOT / "meanfield", tmp_path / "meanfield", symlinks=True,
                    ignore=shutil.ignore_patterns("_version.py", "__pycache__"))
    for name in ("pyproject.toml", "setup.cfg", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    subprocess.run(git + ["init", "-q"], cwd=tmp_path, check=True)
    for n in range(3):
        (tmp_path / "CHANGES").write_text(f"{n}\n")
        subprocess.run(git + ["add", "-A"], cwd=tmp_path, check=True)
        subprocess.run(git + ["commit", "-q", "-m", f"commit {n}"], cwd=tmp_path, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--quiet", "--report",
                           str(tmp_path / "report.json"), str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    version = json.loads((tmp_path / "report.json").read_text())["install"][0]["metadata"]["version"]
    match = re.fullmatch(r"0\.1\.dev3\+g([0-9a-f]{7,})", version)
    assert match and head.startswith(match.group(1)), (version, head)
