"""The package version: written from git by setuptools-scm at install time (``meanfield/_version.py``), or
``0+unknown`` in a source tree that was never installed (the result files then record the git commit)."""
try:
    from ._version import version as __version__
except ImportError:                  # a checkout used through PYTHONPATH, never installed
    __version__ = "0+unknown"
