"""The package version: written from git by setuptools-scm at install time (``meanfield/_version.py``). Without
git metadata, or in a source tree used without installing, it is the one fallback string, ``fallback_version``
of pyproject.toml's ``[tool.setuptools_scm]`` (setuptools-scm uses it at install time, this module reads it from
the checkout); the result files then record the git commit."""
try:
    from ._version import version as __version__
except ImportError:                  # a checkout used through PYTHONPATH, never installed: pyproject.toml is beside
    import pathlib
    import tomllib

    with open(pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml", "rb") as _file:
        __version__ = tomllib.load(_file)["tool"]["setuptools_scm"]["fallback_version"]
