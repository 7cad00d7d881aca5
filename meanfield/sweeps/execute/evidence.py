"""Classification evidence of sweep points: measured in the workers, decided into labels afterwards
(docs/storage.md §3, ``evidence``; the rules: docs/classification.md).

Workers hold every point's recorded series in memory, so they measure the evidence of
:func:`meanfield.analysis.classify` there (:data:`~meanfield.analysis.EVIDENCE`: period and its repeats, the
weighted-Birkhoff drift, torus frequencies, 0–1 K, bands, λ1 ± SE, λ2 …) and the file keeps a few numbers per
point instead of raw trajectories. Deciding a label from stored evidence is cheap, so thresholds can be changed
afterwards without re-running anything (:mod:`.labels`).
"""
from __future__ import annotations

import numpy as np

from ...analysis import EVIDENCE, LABELS, Thresholds, decide, measure
from ...errors import StoreError


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


def decide_points(evidence: np.ndarray, thresholds: Thresholds = Thresholds(), keys=EVIDENCE):
    """Label codes (indices into :data:`LABELS`) and periods (-1: none) from stored evidence (…, len(keys)).

    ``keys`` are the evidence keys the file was written with (its ``evidence_keys`` attribute); evidence of
    another classifier version cannot be decided by today's rules (StoreError: re-run the sweep, or classify
    stored tails)."""
    if tuple(keys) != EVIDENCE:
        raise StoreError(f"the stored evidence has keys {list(keys)} of an older classifier; today's rules need "
                         f"{list(EVIDENCE)}: re-run the sweep (or store tails, record.tail, to classify them)")
    flat = evidence.reshape(-1, len(EVIDENCE))
    codes = np.full(flat.shape[0], LABELS.index("unresolved"), dtype=np.int8)
    periods = np.full(flat.shape[0], -1, dtype=np.int32)
    for i, row in enumerate(flat):
        if np.all(np.isnan(row)):
            continue                     # nothing measured (series too short): unresolved
        result = decide(dict(zip(EVIDENCE, row.tolist())), thresholds)
        codes[i] = LABELS.index(result.label)
        periods[i] = -1 if result.period is None else result.period
    return codes.reshape(evidence.shape[:-1]), periods.reshape(evidence.shape[:-1])


__all__ = ["EVIDENCE", "point_evidence", "decide_points"]
