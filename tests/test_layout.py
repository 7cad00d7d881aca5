"""The package's import rules, read from the source with ``ast`` (nothing is imported or run).

Each top-level part of ``meanfield`` stands on a floor and may import only parts on lower floors (and itself):
no import climbs back up, so no two parts import each other. On top of that: the compiled code knows only
the model; the generic analysis knows nothing of the package but its errors; one module owns the result files
(h5py) and one folder draws (matplotlib); and no modules import each other in a circle.
"""
import ast
import pathlib
import re

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "meanfield"

#: The floors, lowest first. A part is a subpackage (``model``) or a top-level module (``simulation``);
#: ``meanfield`` is the package's face (__init__, __main__), above everything.
FLOORS = (
    ("_version",),                      # written by setuptools-scm at install time
    ("errors", "version", "compiled_cache", "short_repr"),
    ("progress",),                       # bars, and the one check of a progress option (a ConfigError)
    ("analysis",),
    ("model",),
    ("presets", "options"),             # the option records check their fields with the model's rules
    ("kernels",),
    ("simulation",),
    ("attention_orbits",),               # Newton's start is settled by a run of the kernel
    ("systems",),                        # the attention model as a system: the adapter, its samplers and runs
    ("finite", "census"),                # the census: any system, through that adapter
    ("periodic_orbits", "bifurcation_curves"),   # generic: any system, through that adapter
    ("tongues",),                        # traced on the bifurcation curves
    ("sweeps",),
    ("studies",),
    ("plots",),
    ("cli",),
    ("meanfield",),
)
FLOOR = {part: level for level, parts in enumerate(FLOORS) for part in parts}
#: Floors inside ``sweeps``, lowest first: what a run file says, the result files, computing them, reading
#: them. ``sweeps`` itself (its __init__) is the face of the four and holds no code.
SWEEPS_FLOORS = (("config",), ("store",), ("execute",), ("results",), ("sweeps",))
SWEEPS_FLOOR = {part: level for level, parts in enumerate(SWEEPS_FLOORS) for part in parts}
#: What the compiled code may import from the package: the model, the errors, and what the CPU and CUDA
#: reductions share with the generic analysis (one definition of a level code, of a point's reductions).
KERNELS_MAY_IMPORT = ("meanfield.model", "meanfield.errors", "meanfield.compiled_cache", "meanfield.analysis.sections",
                      "meanfield.analysis.reductions")
#: Third-party packages owned by one place each: module name prefix -> the modules allowed to import it.
OWNERS = {"h5py": ("meanfield.sweeps.store",), "matplotlib": ("meanfield.plots",)}
#: What the generic analysis may import from the package: itself, the errors, how compiled code is cached and
#: how results print.
ANALYSIS_MAY_IMPORT = ("meanfield.analysis", "meanfield.errors", "meanfield.compiled_cache", "meanfield.short_repr")
#: The figures draw Datasets and decide nothing: they read result files through the store and never import the
#: sweep's execution or the code that decides its labels and transitions (docs/architecture.md).
PLOTS_MAY_NOT_IMPORT = ("meanfield.sweeps.execute", "meanfield.sweeps.results")


def package_modules() -> dict:
    """{module name: (source, is_package)} of every module of the package."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        out[name] = (path.read_text(encoding="utf-8"), is_package)
    return out


def imports(name: str, source: str, is_package: bool, known) -> set:
    """Absolute names of the modules that ``name`` imports anywhere in its source (function bodies too)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            for alias in node.names:
                found.add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module)
    return found


def part_of(module: str) -> str:
    """The floor unit of a package module: ``meanfield.kernels.step`` -> ``kernels``."""
    parts = module.split(".")
    return "meanfield" if len(parts) == 1 or parts[1] == "__main__" else parts[1]


def sweeps_part_of(module: str) -> str | None:
    """The floor unit of a module inside ``sweeps``: ``meanfield.sweeps.store.files`` -> ``store``; the package's
    own __init__ -> ``sweeps``; None outside ``sweeps``."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] != "sweeps":
        return None
    return parts[2] if len(parts) > 2 else "sweeps"


def within(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def cycles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def violations(modules: dict) -> list:
    """Every broken rule, one line each, for ``modules`` = {name: (source, is_package)}."""
    out = []
    graph = {}
    for name, (source, is_package) in sorted(modules.items()):
        found = imports(name, source, is_package, modules)
        inside = sorted(m for m in found if within(m, ("meanfield",)))
        graph[name] = [m for m in inside if m in modules and m != name]
        part = part_of(name)
        if part not in FLOOR:
            out.append(f"{name}: part {part!r} has no floor in FLOORS")
            continue
        for target in inside:
            other = part_of(target)
            if other != part and FLOOR.get(other, len(FLOORS)) >= FLOOR[part]:
                out.append(f"{name} imports {target}: {other!r} is not below {part!r} (an upward import)")
            if part == "kernels" and other != part and not within(target, KERNELS_MAY_IMPORT):
                out.append(f"{name} imports {target}: kernels import only {list(KERNELS_MAY_IMPORT)}")
            if part == "analysis" and not within(target, ANALYSIS_MAY_IMPORT):
                out.append(f"{name} imports {target}: the generic analysis imports only meanfield.errors")
            if part == "plots" and within(target, PLOTS_MAY_NOT_IMPORT):
                out.append(f"{name} imports {target}: the figures import nothing of {list(PLOTS_MAY_NOT_IMPORT)}")
            room, other_room = sweeps_part_of(name), sweeps_part_of(target)
            if room is not None and other_room is not None and other_room != room:
                if room not in SWEEPS_FLOOR:
                    out.append(f"{name}: sweeps part {room!r} has no floor in SWEEPS_FLOORS")
                elif SWEEPS_FLOOR.get(other_room, len(SWEEPS_FLOORS)) >= SWEEPS_FLOOR[room]:
                    out.append(f"{name} imports {target}: sweeps/{other_room} is not below sweeps/{room} "
                               "(an upward import)")
        for library, owners in OWNERS.items():
            if any(within(m, (library,)) for m in found) and not within(name, owners):
                out.append(f"{name} imports {library}: only {list(owners)} may")
    out += [f"modules import each other in a circle: {' -> '.join(c)}" for c in cycles(graph)]
    return out


def test_the_package_keeps_its_import_rules():
    assert violations(package_modules()) == []


def test_floors_name_every_part():
    parts = {part_of(name) for name in package_modules()}
    assert parts <= set(FLOOR), sorted(parts - set(FLOOR))


def test_sweeps_floors_name_every_part_and_sweeps_holds_only_subpackages():
    """Every module of ``sweeps`` lives in one of its floors' folders (no loose module beside them)."""
    rooms = {sweeps_part_of(name) for name in package_modules()} - {None}
    assert rooms == set(SWEEPS_FLOOR), sorted(rooms ^ set(SWEEPS_FLOOR))


BROKEN = {
    "upward": {"meanfield.model.spec": ("from ..simulation import simulate\n", False)},
    "kernels importing a sibling part": {"meanfield.kernels.step": ("from ..presets import paper\n", False)},
    "analysis importing the model": {"meanfield.analysis.period": ("from meanfield.model import state\n", False)},
    "h5py outside the store": {"meanfield.sweeps.results.labels": ("def f():\n    import h5py\n", False)},
    "the store importing execution": {"meanfield.sweeps.store.sweep": ("from ..execute.evidence import EVIDENCE\n",
                                                                       False)},
    "the run file importing the store": {"meanfield.sweeps.config.runfile": ("from ..store import read_sweep\n",
                                                                           False)},
    "execution importing results": {"meanfield.sweeps.execute.run": ("from ..results.labels import analyze\n",
                                                                     False)},
    "a loose module in sweeps": {"meanfield.sweeps.extra": ("from .config.runfile import RunSpec\n", False)},
    "matplotlib outside plots": {"meanfield.studies.pid": ("import matplotlib.pyplot as plt\n", False)},
    "a figure deciding labels": {"meanfield.plots.sweep": ("def f():\n    from ..sweeps.results import labels\n",
                                                           False)},
    "an import of the face": {"meanfield.cli.plot": ("from .. import __version__\n", False)},
    "a circle": {"meanfield.sweeps.store.a": ("from . import b\n", False),
                 "meanfield.sweeps.store.b": ("from .a import x\n", False)},
    "a part without a floor": {"meanfield.extra": ("import numpy\n", False)},
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_rule_is_found(case):
    modules = dict(package_modules())
    modules.update(BROKEN[case])
    found = violations(modules)
    assert len(found) >= 1, case
    assert all(any(name in line for name in BROKEN[case]) for line in found), found


#: The most parameters a function of the package may take (``self``, ``*args`` and ``**kwargs`` count): more
#: travel together and belong in a record (the kernels' are :mod:`meanfield.model.layout`'s named tuples).
MAX_PARAMETERS = 12


def crowded_functions(modules: dict) -> list:
    """'module:line name (n parameters)' for every function or lambda taking more than MAX_PARAMETERS."""
    found = []
    for name, (source, _) in sorted(modules.items()):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = node.args
                count = (len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs) + (args.vararg is not None)
                         + (args.kwarg is not None))
                if count > MAX_PARAMETERS:
                    found.append(f"{name}:{node.lineno} {getattr(node, 'name', 'lambda')} ({count} parameters)")
    return found


def test_no_function_takes_more_than_twelve_parameters():
    assert crowded_functions(package_modules()) == []


def test_a_crowded_function_is_found():
    twelve = ", ".join(f"a{i}" for i in range(12))
    source = f"def f({twelve}, *, k=1):\n    pass\ng = lambda {twelve}: 0\n"      # 13 and 12 parameters
    found = crowded_functions({"meanfield.extra": (source, False)})
    assert found == ["meanfield.extra:1 f (13 parameters)"]


#: The longest a function of the package may be, in lines from its ``def`` to its last line (docstring
#: included): a longer one does several things, which get names of their own.
MAX_LINES = 120


def long_functions(modules: dict) -> list:
    """'module:line name (n lines)' for every function (nested ones too) longer than MAX_LINES."""
    found = []
    for name, (source, _) in sorted(modules.items()):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_LINES:
                    found.append(f"{name}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_longer_than_120_lines():
    assert long_functions(package_modules()) == []


def test_a_long_function_is_found():
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    source = f"def short():\n    pass\n\n\ndef f():\n{body}"            # f: 1 + 120 lines
    assert long_functions({"meanfield.extra": (source, False)}) == [f"meanfield.extra:5 f ({MAX_LINES + 1} lines)"]


#: The one module that names the labels (docs/classification.md §6); every other module reads its table.
LABEL_AUTHORITY = "meanfield.analysis.labels"
LABEL_NAMES = {"fixed_point", "periodic", "quasi_periodic", "chaotic", "hyperchaotic", "unresolved", "divergent",
               "missing", "aperiodic"}
#: Names of periodic/chaos decision thresholds that once had several homes: only the classifier's Thresholds
#: (meanfield.analysis.evidence) may define a threshold of the decision.
RETIRED_THRESHOLDS = ("CHAOS_EXPONENT",)


def label_tables(modules: dict) -> list:
    """'module:line' of every tuple, list or set literal holding two or more label names outside the authority
    (a table of labels built again), and of every assignment to a retired threshold name."""
    found = []
    for name, (source, _) in sorted(modules.items()):
        for node in ast.walk(ast.parse(source)):
            if name != LABEL_AUTHORITY and isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                names = [e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in LABEL_NAMES]
                if len(names) >= 2:
                    found.append(f"{name}:{node.lineno} {names}")
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found += [f"{name}:{node.lineno} {t.id}" for t in targets
                          if isinstance(t, ast.Name) and t.id in RETIRED_THRESHOLDS]
    return sorted(found, key=lambda line: (line.split(":")[0], int(line.split(":")[1].split()[0])))


def test_one_module_names_the_labels():
    assert label_tables(package_modules()) == []


def test_a_second_label_table_is_found():
    source = 'NAMES = ("fixed_point", "periodic", "chaotic")\nCHAOS_EXPONENT = 1e-3\n'
    found = label_tables({"meanfield.census.extra": (source, False)})
    assert found == ["meanfield.census.extra:1 ['fixed_point', 'periodic', 'chaotic']",
                     "meanfield.census.extra:2 CHAOS_EXPONENT"]


#: "unresolved" has one meaning: the classifier's label for an attractor it cannot name (docs/classification.md).
#: A census start that settled on no attractor is "unsettled" (docs/attractors.md). The two modules that own the
#: label use the word freely: the vocabulary and the classifier that gives the label and says why.
WORD_OWNERS = {"meanfield.analysis.labels", "meanfield.analysis.classify"}
#: The one other place: the table of the names older files gave to unsettled starts, which the readers map to the
#: new names (meanfield.sweeps.store.schema.RENAMED, docs/storage.md §7) — those names, and only those.
OLD_FILE_NAMES = {"meanfield.sweeps.store.schema": {"census_unresolved", "tipping_unresolved", "unresolved"}}
#: A word holding "unresolved", with the quotes or backticks around it.
WORD = re.compile(r"([`\"']*)(\w*unresolved\w*)([`\"']*)", re.IGNORECASE)


def misused_word(modules: dict) -> list:
    """'module:line word' of every "unresolved" outside :data:`WORD_OWNERS` that is not the label's name quoted
    (``"unresolved"``, ````unresolved````): prose ("unresolved starts"), an identifier (``unresolved_fraction``) or a
    dataset name (``census_unresolved``) means an unsettled start, which has its own word."""
    found = []
    for name, (source, _) in sorted(modules.items()):
        if name in WORD_OWNERS:
            continue
        for number, line in enumerate(source.splitlines(), 1):
            for match in WORD.finditer(line):
                before, word, after = match.groups()
                if not (word == "unresolved" and before and after) and word not in OLD_FILE_NAMES.get(name, ()):
                    found.append(f"{name}:{number} {match.group(0)}")
    return found


def test_unresolved_means_the_label_only():
    assert misused_word(package_modules()) == []


def test_a_second_meaning_of_unresolved_is_found():
    source = ('"""Unresolved starts."""\nx = census.unresolved_fraction\nlabel = "unresolved"\n'
              '# the label ``unresolved``\nname = "census_unresolved"\n')
    assert misused_word({"meanfield.census.extra": (source, False)}) == [
        "meanfield.census.extra:1 \"\"\"Unresolved", "meanfield.census.extra:2 unresolved_fraction",
        'meanfield.census.extra:5 "census_unresolved"']
    assert misused_word({"meanfield.sweeps.store.schema": (source, False)}) == [
        "meanfield.sweeps.store.schema:1 \"\"\"Unresolved", "meanfield.sweeps.store.schema:2 unresolved_fraction"]
