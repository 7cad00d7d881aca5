"""``import meanfield`` and ``meanfield --help`` load none of the heavy libraries (docs/run_files.md): the
public names resolve on first use (meanfield/__init__.py)."""
import subprocess
import sys

import pytest

import meanfield as mf

HEAVY = ("numba", "scipy", "xarray", "dask", "distributed", "matplotlib", "h5py", "pandas")


@pytest.mark.system
def test_import_and_help_load_nothing_heavy():
    code = ("import sys, contextlib, io\n"
            "import meanfield\n"
            "from meanfield.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    main(['--help'])\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_every_public_name_resolves():
    for name in mf.__all__:
        assert getattr(mf, name) is not None, name
    assert set(mf.__all__) <= set(dir(mf))
    with pytest.raises(AttributeError, match="no_such_name"):
        mf.no_such_name      # noqa: B018
