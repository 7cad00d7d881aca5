"""The package version (one place; ``meanfield.__version__`` and the result files' provenance read it)."""
__version__ = "0.1.0"
