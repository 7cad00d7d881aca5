"""The public API (the names of ``meanfield``, ``meanfield.analysis`` and ``meanfield.census``, docs/api.md) takes
at most eight parameters per function or method: options that travel together are records (``Lyapunov``,
``Record``, ``Compute``, ``Place``, ``Replicas``, ``census.Starts``, ``census.Tolerances``)."""
import inspect
import pathlib

import pytest

import meanfield
import meanfield.analysis
import meanfield.census

pytestmark = pytest.mark.unit

NAMESPACES = (meanfield, meanfield.analysis, meanfield.census)
#: The most parameters a public function or method takes (``self``, ``*args`` and ``**kwargs`` count).
MAX_PUBLIC_PARAMETERS = 8


def wide_callables(namespaces) -> list:
    """'namespace.name (n parameters)' for every public function, and public method of a public class, that takes
    more than MAX_PUBLIC_PARAMETERS (a class's constructor is its record's fields, not counted)."""
    found = []
    for namespace in namespaces:
        for name in namespace.__all__:
            value = getattr(namespace, name)
            if inspect.ismodule(value):
                continue
            members = [(name, value)] if inspect.isfunction(value) else [
                (f"{name}.{attr}", member) for attr, member in vars(value).items()
                if not attr.startswith("_") and inspect.isfunction(member)] if inspect.isclass(value) else []
            for label, function in members:
                count = len(inspect.signature(function).parameters)
                if count > MAX_PUBLIC_PARAMETERS:
                    found.append(f"{namespace.__name__}.{label} ({count} parameters)")
    return found


def test_no_public_function_takes_more_than_eight_parameters():
    assert wide_callables(NAMESPACES) == []


def test_a_wide_function_and_a_wide_method_are_found():
    import types

    def wide(a, b, c, d, e, f, g, h, *, i=0):
        pass

    class Tool:
        def run(self, a, b, c, d, e, f, g, *rest):
            pass

    namespace = types.SimpleNamespace(__name__="extra", __all__=["wide", "Tool"], wide=wide, Tool=Tool)
    assert wide_callables([namespace]) == ["extra.wide (9 parameters)", "extra.Tool.run (9 parameters)"]


#: The most names the three namespaces hold together (``__version__`` included).
MAX_PUBLIC_NAMES = 70
API_PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "api.md"


def documented_names(page: str) -> set:
    """The dotted names the API page's autosummary tables list (each under its ``currentmodule``)."""
    names, module, in_table = set(), "", False
    for line in page.splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::")[1].strip()
        elif line.startswith(".. autosummary::"):
            in_table = True
        elif in_table and line.startswith("   ") and not line.strip().startswith(":"):
            names.add(f"{module}.{line.strip()}")
        elif in_table and line.strip() and not line.startswith("   "):
            in_table = False
    return names


def test_the_public_surface_is_at_most_seventy_names_each_on_the_api_page():
    public = [f"{namespace.__name__}.{name}" for namespace in NAMESPACES for name in namespace.__all__]
    assert len(public) <= MAX_PUBLIC_NAMES
    documented = documented_names(API_PAGE.read_text(encoding="utf-8"))
    # a subpackage is documented by its entries; __version__ by meanfield --version
    missing = [name for name in public if name not in documented and name != "meanfield.__version__"
               and not any(entry.startswith(name + ".") for entry in documented)]
    assert missing == []


def test_every_public_name_is_reachable_and_no_namespace_repeats_another():
    seen = {}
    for namespace in NAMESPACES:
        for name in namespace.__all__:
            value = getattr(namespace, name)               # AttributeError if __all__ names nothing
            if not inspect.ismodule(value) and not isinstance(value, (str, tuple, dict)):
                assert id(value) not in seen, f"{namespace.__name__}.{name} is also {seen.get(id(value))}"
                seen[id(value)] = f"{namespace.__name__}.{name}"


def test_an_undocumented_name_is_found():
    page = ".. currentmodule:: meanfield\n\n.. autosummary::\n   :toctree: generated\n\n   simulate\n\nText\n"
    assert documented_names(page) == {"meanfield.simulate"}
