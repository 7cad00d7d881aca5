"""Reprs that fit on a screen (docs/api.md, "Results print short"): a result's arrays are shown by shape and dtype
(a few values when they are few), long lists by their length and first items, nested results by their own
short repr. The arrays themselves stay on the object.
"""
from __future__ import annotations

import dataclasses
from collections import abc

import numpy as np

#: No repr made here is longer than this many characters.
LIMIT = 2000
#: Arrays of at most this many entries, sequences and mappings of at most this many items, are shown whole.
FEW = 6
#: A nested value's repr longer than this is cut to it.
NESTED = 240


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def short(value) -> str:
    """The repr of ``value`` with arrays by shape, long sequences and mappings by length (module docstring)."""
    if isinstance(value, np.ndarray):
        if value.size <= FEW and value.ndim <= 1:
            return np.array2string(value, precision=6, separator=", ")
        return f"array(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, abc.Mapping):
        items = list(value.items())
        shown = ", ".join(f"{k!r}: {short(v)}" for k, v in items[:FEW])
        return "{" + shown + (f", … {len(items) - FEW} more" if len(items) > FEW else "") + "}"
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        shown = ", ".join(short(v) for v in value[:FEW])
        more = f", … {len(value) - FEW} more" if len(value) > FEW else ""
        brackets = "[]" if isinstance(value, list) else "()"
        return brackets[0] + shown + more + brackets[1]
    return _cut(repr(value), NESTED)


def fields_repr(obj) -> str:
    """``Name(field=value, …)`` of a dataclass, every value by :func:`short`, at most :data:`LIMIT` characters."""
    parts = [f"{f.name}={short(getattr(obj, f.name))}" for f in dataclasses.fields(obj) if f.repr]
    return _cut(f"{type(obj).__name__}({', '.join(parts)})", LIMIT)


def short_repr(cls):
    """Class decorator (above ``@dataclass``): the class's repr is :func:`fields_repr`."""
    cls.__repr__ = fields_repr
    return cls


__all__ = ["LIMIT", "fields_repr", "short", "short_repr"]
