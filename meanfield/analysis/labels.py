"""The label vocabulary: every name an attractor can be given anywhere in meanfield, and its stored code.

One table, read by everything that labels, stores, reads or draws attractors — the classifier
(:func:`meanfield.analysis.classify`), the census, the bifurcation tools, sweep results and plots — so a label
means one thing and is written one way in every file (docs/classification.md §6 gives the rules that choose a
label; this module only names them):

========== ================== =====================================================================
code       name               meaning
========== ================== =====================================================================
0          ``fixed_point``    a fixed point (of the stroboscopic map of a periodically forced map)
1          ``periodic``       a cycle of period p, seen repeating
2          ``quasi_periodic`` a torus: regular, aperiodic, λ1 consistent with 0
3          ``chaotic``        irregular with λ1 significantly positive
4          ``hyperchaotic``   chaotic with λ2 significantly positive too
5          ``unresolved``     the evidence does not decide (run longer): never a guess
6          ``divergent``      NaN/inf or beyond the bound
-1         ``missing``        nothing there: a point not computed, an empty attractor slot
========== ================== =====================================================================

Census files written before the census labelled its attractors with the classifier's rules used their own
codes (``aperiodic``, "no period and no exponents", at code 5); such files name their codes in a
``label_names`` attribute, which :func:`label_names` reads.
"""

from __future__ import annotations

import numpy as np

from meanfield.errors import AnalysisError

LABELS = ("fixed_point", "periodic", "quasi_periodic", "chaotic", "hyperchaotic", "unresolved", "divergent")
"""Every label the classifier gives, in the order of their stored codes."""

MISSING = -1
"""Stored code of nothing: a point not computed, an empty attractor slot."""

MISSING_NAME = "missing"
"""The name of :data:`MISSING`."""

CYCLES = ("fixed_point", "periodic")
"""Labels of attractors that are cycles (a period was seen)."""

UNDECIDED = ("unresolved", MISSING_NAME)
"""Names that say nothing of the attractor: a label transition is located only between other classes."""

SLOW_CYCLE_HIDES = ("unresolved", "quasi_periodic")
"""Labels under which a cycle approached too slowly for its run may hide (a multiplier near the unit circle):
where the sweep's transition table checks for a stable cycle by Newton's method."""


class PointClass(str):
    """A point's class along a sweep (docs/classification.md §9): a value of the vocabulary, its ``label`` (one of
    :data:`LABELS`, or ``"missing"``) with the ``period`` of a ``periodic`` one (0 for the others) — ``periodic``
    of period 28 and of period 56 are two classes (a period doubling). It compares and prints as its name,
    ``"periodic(28)"`` or the label, and carries both fields, so nothing reads them back from that name."""

    label: str
    period: int

    def __new__(cls, label: str, period: int = 0):
        if label not in LABELS and label != MISSING_NAME:
            raise AnalysisError(f"label = {label!r} is not allowed: one of {', '.join(LABELS)} or {MISSING_NAME}")
        period = int(period) if label == "periodic" else 0
        self = super().__new__(cls, f"periodic({period})" if label == "periodic" else label)
        self.label, self.period = label, period
        return self

    def __getnewargs__(self):
        return self.label, self.period


def point_classes(codes, periods) -> np.ndarray:
    """The :class:`PointClass` of every point (object array, shape of ``codes``) from stored label ``codes`` and
    ``periods``."""
    codes = np.asarray(codes, dtype=np.int64)
    periods = np.where(codes == LABELS.index("periodic"), np.asarray(periods, dtype=np.int64), 0)
    pairs, inverse = np.unique(np.stack([codes.ravel(), periods.ravel()]), axis=1, return_inverse=True)
    table = np.empty(pairs.shape[1], dtype=object)        # one value per distinct class, shared by its points
    table[:] = [PointClass(name, period) for name, period in zip(label_names(pairs[0]), pairs[1])]
    return table[inverse.ravel()].reshape(codes.shape)


def label_code(name: str) -> int:
    """The stored code of a label name (:data:`MISSING` for ``"missing"``)."""
    return MISSING if name == MISSING_NAME else LABELS.index(name)


def label_names(codes, names=LABELS) -> np.ndarray:
    """Label names (object array, shape of ``codes``) of stored ``codes``; :data:`MISSING` is ``"missing"``.
    ``names`` is the vocabulary the codes were written with (a file's ``label_names``; default today's)."""
    table = np.array([*names, MISSING_NAME], dtype=object)
    codes = np.asarray(codes, dtype=np.int64)
    return table[np.where(codes < 0, len(names), codes)]


__all__ = ["CYCLES", "LABELS", "MISSING", "MISSING_NAME", "SLOW_CYCLE_HIDES", "UNDECIDED", "PointClass", "label_code",
           "label_names", "point_classes"]
