"""The public API (the names of ``meanfield``, ``meanfield.analysis`` and ``meanfield.census``, docs/api.md) takes
at most eight parameters per function or method: options that travel together are records (``Lyapunov``,
``Record``, ``Compute``, ``Place``, ``Replicas``, ``census.Starts``, ``census.Tolerances``)."""
import inspect

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
