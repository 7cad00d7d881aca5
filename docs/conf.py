"""Sphinx configuration of the documentation site (README, "Documentation"): the pages are docs/*.md (MyST
Markdown), parts of README.md included by docs/getting_started.md, docs/run_files.md and docs/clusters.md, and
an API reference generated from the docstrings (docs/api.md). Built with warnings as errors in .ci/run."""
import meanfield

project = "meanfield"
author = "the meanfield authors"
copyright = "the meanfield authors"
release = meanfield.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# MyST: anchors for headings down to ###, so README's in-page links ("#models") resolve in the included parts
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# API reference: one page per public object, from the docstrings (numpy style); members in source order
autosummary_generate = True
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"
napoleon_numpy_docstring = True
napoleon_google_docstring = False

html_theme = "alabaster"
html_title = f"meanfield {release}"

# Type fields of numpy-style docstrings ("array_like, shape (points, time)") are cross-referenced word by word;
# words such as "points" or "period" name attributes of several classes, which is not an error in the text.
suppress_warnings = ["ref.python"]


def escape_bars(app, what, name, obj, options, lines):
    """Docstrings write |x| for an absolute value, as the paper does; reST would read it as a substitution
    reference, so every bar is escaped (no docstring here uses substitutions or tables)."""
    lines[:] = [line.replace("|", r"\|") for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", escape_bars)
