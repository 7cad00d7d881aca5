"""One fallback version string: pyproject.toml's ``[tool.setuptools_scm] fallback_version``, which
setuptools-scm uses without git metadata and meanfield/version.py reads in a checkout that was never
installed."""
import pathlib
import shutil
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]

# import meanfield.version from the copy, past an editable install's finder of this checkout
CHILD = """
import sys
sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
import meanfield.version
print(meanfield.version.__file__)
print(meanfield.version.__version__)
"""


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
        assert version == tomllib.load(f)["tool"]["setuptools_scm"]["fallback_version"] == "0+unknown"
