"""Classification evidence of sweep points: measured in the workers, decided into labels afterwards
(docs/storage.md §3, ``evidence``; the rules: docs/classification.md).

Workers hold every point's recorded series in memory, so they measure the evidence of
:func:`meanfield.analysis.classify` there (:data:`~meanfield.analysis.evidence.EVIDENCE`: period and its repeats, the
weighted-Birkhoff drift, torus frequencies, 0–1 K, bands, λ1 ± SE, λ2 …) and the file keeps a few numbers per
point instead of raw trajectories. Deciding a label from stored evidence is cheap, so thresholds can be changed
afterwards without re-running anything (:mod:`meanfield.sweeps.results.labels`).
"""
from __future__ import annotations

import numpy as np

from ...analysis import Thresholds
from ...analysis.evidence import EVIDENCE, measure


def point_evidence(records: np.ndarray, lyapunov=None, stderr=None, thresholds: Thresholds = Thresholds(),
                   forcing: int = 1):
    """Evidence (n, len(EVIDENCE)) of every point of a chunk, NaN where a quantity was not measured.

    ``records`` (n, rows, M) is the recorded observable; a point with fewer than ``thresholds.min_length``
    rows gets NaN evidence (``decide`` then says ``unresolved``); ``forcing`` is the model's
    :meth:`~meanfield.model.spec.ModelSpec.forcing_period`.
    """
    out = np.full((records.shape[0], len(EVIDENCE)), np.nan)
    if records.shape[1] < thresholds.min_length:
        return out
    for i, series in enumerate(records):
        lam = None if lyapunov is None else lyapunov[i]
        se = None if stderr is None or not np.all(stderr[i] >= 0) else stderr[i]
        ev = measure(series, lam, se, 0, 1 % series.shape[1], thresholds, forcing)
        out[i] = [np.nan if ev[k] is None else ev[k] for k in EVIDENCE]
    return out


__all__ = ["EVIDENCE", "point_evidence"]
