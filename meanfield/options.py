"""The option records of the entry points (docs/api.md, "Options"): what a run measures and records, and where
and how it computes. Each record checks its own fields when it is made (a ConfigError naming the field, the
value and what is allowed), so a bad option is refused before anything runs, and one option name has one type
everywhere: ``lyapunov`` a :class:`Lyapunov` (or its shorthands), ``record`` a :class:`Record` (or observable
names), ``compute`` a :class:`Compute`.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError
from .model.layout import OBSERVABLES
from .model.run_rules import BACKENDS
from .model.spec import require_int
from .progress import check_progress
from .short_repr import short_repr


@short_repr
@dataclass(frozen=True)
class Lyapunov:
    """Which Lyapunov exponents a run measures and how (docs/model.md §4.2): the ``k`` leading ones (None: all of
    them, L·M, or L·M + 2M with a PID controller), the tangent vectors re-orthonormalised every ``qr_every``
    steps (None: :data:`meanfield.simulation.DEFAULT_QR_EVERY`; QR also runs at block ends) and standard errors
    over ``n_blocks`` equal blocks of the tail (None: min(20, steps − transient)).

    ``lyapunov=True`` is ``Lyapunov()``, ``lyapunov=k`` is ``Lyapunov(k=k)``, ``lyapunov=False`` none."""

    k: int | None = None
    qr_every: int | None = None
    n_blocks: int | None = None

    def __post_init__(self):
        for name in ("k", "qr_every", "n_blocks"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, require_int(name, getattr(self, name), 1))

    @property
    def asked(self):
        """True (all of them) or k, the count :func:`meanfield.model.run_rules.exponent_count` takes."""
        return True if self.k is None else self.k


@short_repr
@dataclass(frozen=True)
class Record:
    """What a run records: the observables ``fields`` (names of :data:`meanfield.OBSERVABLES`; None: all of
    them) at every ``every``-th iteration from the transient on (docs/model.md §3.2). ``record="att"`` or
    ``record=("mo", "att")`` is ``Record(fields=...)``."""

    fields: tuple | None = None
    every: int = 1

    def __post_init__(self):
        try:
            fields = OBSERVABLES if self.fields is None else (
                (self.fields,) if isinstance(self.fields, str) else tuple(self.fields))
        except TypeError:
            fields = (self.fields,)                        # not names at all: refused below
        if any(f not in OBSERVABLES for f in fields) or len(set(fields)) != len(fields):
            raise ConfigError(f"record = {list(fields)} is not allowed: choose distinct names from "
                              f"{list(OBSERVABLES)}")
        object.__setattr__(self, "fields", fields)
        object.__setattr__(self, "every", require_int("every", self.every, 1))

    @classmethod
    def of(cls, value) -> Record:
        """The record ``record = value`` asks for: the record itself, or observable names (one or several; None:
        all of them)."""
        return value if isinstance(value, cls) else cls(fields=value)


@short_repr
@dataclass(frozen=True)
class Compute:
    """Where and how the work runs; the results do not depend on it (bitwise on the CPU, docs/model.md §7).

    ``backend``: "cpu", "cuda" or "cuda:float32" (the cuda backends need the GPU extra: BackendError without a
    GPU), or a kernel ``kernel(batch) -> BatchOutput`` (:mod:`meanfield.kernels`). ``progress``: a bar on
    stderr — None (the default) once the work has run a second, True at once, False never. ``chunk``: starts or
    pixel rows per kernel call (memory; None: the tool's default). A tool refuses a field it has no use for (a
    chunk to ``simulate_batch``, a bar to ``basin_map``) rather than ignore it."""

    backend: object = "cpu"
    progress: bool | None = None
    chunk: int | None = None

    def __post_init__(self):
        if isinstance(self.backend, str) and self.backend not in BACKENDS:
            raise ConfigError(f"backend = {self.backend!r} is not allowed: available backends are {list(BACKENDS)}")
        if not isinstance(self.backend, str) and not callable(self.backend):
            raise ConfigError(f"backend = {self.backend!r} is not allowed: a backend name of {list(BACKENDS)} or a "
                              "kernel")
        check_progress(self.progress)
        if self.chunk is not None:
            object.__setattr__(self, "chunk", require_int("chunk", self.chunk, 1))


def check_compute(compute, tool: str, *unused: str) -> Compute:
    """``compute`` if it is a :class:`Compute` that sets none of the fields ``tool`` has no use for (``"chunk"``,
    ``"progress"``: a bar it does not draw), else a ConfigError naming the field — an option is refused, never
    ignored."""
    if not isinstance(compute, Compute):
        raise ConfigError(f"compute = {compute!r} is not allowed: must be a meanfield.Compute (backend, progress, "
                          "chunk)")
    for name in unused:
        if getattr(compute, name) not in (None, False):
            raise ConfigError(f"{name} = {getattr(compute, name)!r} is not allowed: {tool} takes no {name}")
    return compute


__all__ = ["Compute", "Lyapunov", "Record", "check_compute"]
