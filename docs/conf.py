"""Sphinx configuration of the documentation site, the manual (README, "Documentation", links its pages): the
pages are docs/*.md (MyST Markdown) and an API reference generated from the docstrings (docs/api.md). Built
nitpicky (every cross-reference resolves) with warnings as errors in .ci/run."""
import importlib
import inspect
import re

from sphinx.util.nodes import make_refnode

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
    "sphinx.ext.intersphinx",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# MyST: anchors for headings down to ###, so in-page links ("#models") resolve
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "amsmath"]      # $...$, $$...$$ and \begin{align} as math

# API reference: one page per public object, from the docstrings (numpy style); members in source order. Fields
# without a docstring of their own (a dataclass's, described by its class docstring) get an entry too, so the
# attribute table of each class page links somewhere; a numpy "Attributes" section is a field list of the class
# (napoleon_use_ivar), not a second entry of the same attribute.
autosummary_generate = True
autodoc_default_options = {"members": True, "undoc-members": True, "member-order": "bysource"}
autodoc_typehints = "description"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_ivar = True

html_theme = "alabaster"
html_title = f"meanfield {release}"

# External types (numpy.ndarray, xarray.Dataset, collections.abc.Mapping, ...) link to their projects' pages
# through the inventories in docs/inventories/, so the build reaches no network: written by hand in Sphinx's plain
# inventory format (version 1: name, type, page; the anchor is the name), one line per name the docstrings use.
# A docstring that names another external type fails the build until its line is added.
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", "inventories/python.inv"),
    "numpy": ("https://numpy.org/doc/stable", "inventories/numpy.inv"),
    "xarray": ("https://docs.xarray.dev/en/stable", "inventories/xarray.inv"),
}


def escape_bars(app, what, name, obj, options, lines):
    """Docstrings write |x| for an absolute value, as the paper does; reST would read it as a substitution
    reference, so every bar is escaped (no docstring here uses substitutions or tables)."""
    lines[:] = [line.replace("|", r"\|") for line in lines]


# Type fields of the numpy-style docstrings ("array_like, shape (points, time), optional") are prose around the
# type names. Sphinx would cross-reference them word by word, so a dimension such as "points", "period" or "shape"
# would link to whichever class has an attribute of that name. type_field marks them up instead: a name becomes a
# reference (and must resolve: the build is nitpicky), a shape in parentheses, a quoted value or a set of values
# stays text, and so do these words, which are the numpy docstring conventions' prose, not references.
TYPE_PROSE = {"optional", "default", "or", "of", "and", "shape", "array_like", "array-like"}
TYPE_FIELD = re.compile(r"^(\s*:(?:type [^:]+|vartype [^:]+|rtype|type):\s+)(.+)$")
TYPE_TOKEN = re.compile(r"""(?P<text>\((?:[^()]|\([^()]*\))*\)|"[^"]*"|'[^']*'|\{[^}]*\}"""   # shape, value, set
                        r"|-?\d[\w.^+-]*|\\\||[^\w\s~]+|~(?![A-Za-z_]))"                   # number, bar, punctuation
                        r"|(?P<word>~?[A-Za-z_][\w.-]*)|(?P<space>\s+)")


def type_field(spec: str) -> str:
    """reST for one type field's text: each name a :py:class: reference, the text between them emphasised
    (escaped spaces, which print nothing, let a reference and the text touch: "int, optional")."""
    pieces, text = [], []

    def flush():
        joined = "".join(text)
        core = joined.strip()
        if core:
            lead, trail = joined[:len(joined) - len(joined.lstrip())], joined[len(joined.rstrip()):]
            pieces.append((lead or "\\ ") + f"*{core}*" + (trail or "\\ "))
        else:
            pieces.append(joined)
        text.clear()

    for match in TYPE_TOKEN.finditer(spec):
        word = match.group("word")
        if word is None or word in TYPE_PROSE:
            text.append(match.group(0))
        else:       # "~numpy.ndarray" shows "ndarray"; the dot: looked up as Sphinx looks up a field's type
            flush()
            pieces.append(f":py:class:`~.{word[1:]}`" if word.startswith("~") else f":py:class:`.{word}`")
    flush()
    return "".join(pieces).removeprefix("\\ ").removesuffix("\\ ")


def mark_up_types(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        match = TYPE_FIELD.match(line)
        if match and "`" not in match.group(2):
            lines[i] = match.group(1) + type_field(match.group(2))


# The API reference documents the public names; docstrings also cite the modules and helpers behind them
# (:func:`~meanfield.sweeps.config.where.where_to_compute`), or a public object by the module that defines it
# (:func:`~meanfield.analysis.classify.decide`). Such a reference is checked by importing it: one that names an
# object the reference documents links to its page, one that names something else of meanfield is shown as code,
# and one that names nothing fails the build as any other. A short name (``find_cycle``, ``.families``) is read
# where the docstring is written: in the module that defines the documented object, then in its package, as Python
# reads the names of that module.
def internal_reference(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target, kind = node["reftarget"], node["reftype"]
    module, cls = node.get("py:module"), node.get("py:class")
    candidates = [target] + ([f"{module}.{cls}.{target}"] if module and cls else []) + (
        [f"{module}.{target}"] if module else []) + [f"{home}.{target.lstrip('.')}" for home in homes(node)]
    for path in candidates:
        found, obj = lookup(path, kind) if path.startswith("meanfield.") else (False, None)
        if found:
            held, documented = DOCUMENTED.get(id(obj), (None, None))
            if held is not obj or not identifiable(obj):
                return contnode
            entry = env.get_domain("py").objects[documented]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, documented)
    return None


def homes(node) -> list:
    """The module defining the object whose page ``node`` is on (``generated/<dotted name>``), then its package."""
    page = node.get("refdoc", "")
    if not page.startswith("generated/"):
        return []
    found, obj = lookup(page.removeprefix("generated/"), "obj")
    defined = getattr(inspect.unwrap(obj), "__module__", None) if found else None
    if not defined or not defined.startswith("meanfield"):
        return []
    return [defined, defined.rsplit(".", 1)[0]]


def lookup(path: str, kind: str):
    """(whether path names an object of meanfield of the kind the role asks for, the object). The dotted name is
    read as Python reads it (``meanfield.simulate`` is the function), else from its longest importable module
    (``meanfield.simulation.BatchRun``)."""
    parts = path.split(".")
    for start in [1] + list(range(len(parts), 1, -1)):
        try:
            obj = importlib.import_module(".".join(parts[:start]))
        except ImportError:
            continue
        for k, attr in enumerate(parts[start:], start=start + 1):
            if hasattr(obj, attr) and not (kind == "mod" and k == len(parts)):
                obj = getattr(obj, attr)
                continue
            try:
                obj = importlib.import_module(".".join(parts[:k]))
            except ImportError:
                if k == len(parts) and kind in ("attr", "obj") and attr in getattr(obj, "__annotations__", {}):
                    return True, None                     # a dataclass field without a default is no attribute
                break
        else:
            kinds = {"mod": inspect.ismodule, "class": inspect.isclass, "exc": inspect.isclass, "func": callable,
                     "meth": callable}
            if kinds.get(kind, lambda _: True)(obj):
                return True, obj
    return False, None


def identifiable(obj) -> bool:
    """Whether obj is one object by identity (not a number or string another name may share)."""
    return obj is not None and not isinstance(obj, (int, float, complex, str, bytes))


DOCUMENTED = {}   # id of each object the API reference documents -> (the object, held so the id stays its, name)


def index_documented(app, env):
    """Fill DOCUMENTED once every page has been read (before the references are resolved)."""
    DOCUMENTED.clear()
    for name in env.get_domain("py").objects:
        found, obj = lookup(name, "obj")
        if found and identifiable(obj):
            DOCUMENTED.setdefault(id(obj), (obj, name))


def setup(app):
    app.connect("autodoc-process-docstring", escape_bars)
    app.connect("autodoc-process-docstring", mark_up_types, priority=600)    # after napoleon wrote the fields
    app.connect("env-check-consistency", index_documented)
    app.connect("missing-reference", internal_reference)
