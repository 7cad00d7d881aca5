"""The attention model as a system (docs/architecture.md §2), below the census and the orbit tools that take it.

:mod:`.attention` adapts a ``ModelSpec`` to the system protocol (:class:`meanfield.analysis.system.System`, which a
user's :class:`meanfield.Map` implements too): :class:`~.attention.AttentionSystem` and :func:`~.attention.as_system`,
the one adapter the tools call. Its samplers (:mod:`.starts`, docs/attractors.md §1) and its runs that skip exact
cycles (:mod:`.exact_cycles`, docs/attractors.md §4) live beside it.
"""
from ..analysis.system import System
from .attention import AttentionSystem, as_system

__all__ = ["AttentionSystem", "System", "as_system"]
