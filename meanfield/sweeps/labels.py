"""Attractor classification over whole sweeps (issue 4 §5): evidence measured in the workers, labels decided
from it by ``meanfield analyze`` into an ``analysis`` group of the sweep file.

Workers hold every point's recorded series in memory, so they measure the evidence of
:func:`meanfield.analysis.classify` there (period, amplitude, 0–1 K, spectral entropy, distinct and section
counts, λ1 ± SE, λ2) and the file keeps a few numbers per point instead of raw trajectories. Deciding a label
from stored evidence is cheap, so thresholds can be changed afterwards without re-running anything.
"""
from __future__ import annotations

import json
import os

import h5py
import numpy as np

from .analysis import EVIDENCE, LABELS, Thresholds, classify, decide
from .analysis.classify import measure
from .errors import AnalysisError, StoreError

#: Label code stored for points not computed yet.
MISSING = -1


def point_evidence(records: np.ndarray, lyapunov=None, stderr=None, thresholds: Thresholds = Thresholds()):
    """Evidence (n, len(EVIDENCE)) of every point of a chunk, NaN where a quantity was not measured.

    ``records`` (n, rows, M) is the recorded observable; a point with fewer than ``thresholds.min_length``
    rows gets NaN evidence (``decide`` then says ``unresolved``).
    """
    out = np.full((records.shape[0], len(EVIDENCE)), np.nan)
    if records.shape[1] < thresholds.min_length:
        return out
    for i, series in enumerate(records):
        lam = None if lyapunov is None else lyapunov[i]
        se = None if stderr is None or not np.all(stderr[i] >= 0) else stderr[i]
        ev = measure(series, lam, se, 0, 1 % series.shape[1], thresholds)
        out[i] = [np.nan if ev[k] is None else ev[k] for k in EVIDENCE]
    return out


def decide_points(evidence: np.ndarray, thresholds: Thresholds = Thresholds()):
    """Label codes (indices into :data:`LABELS`) and periods (-1: none) from stored evidence (…, len(EVIDENCE))."""
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


def _labels_from_tails(f: h5py.File, thresholds: Thresholds):
    """Older sweep files without stored evidence: classify the stored mo_se tails."""
    if "tail_mo_se" not in f:
        raise StoreError(f"{f.filename!r} has neither classification evidence nor an mo_se tail to classify")
    tails = f["tail_mo_se"][...]
    shape = tails.shape[:len(f["done"].shape)]
    tails = tails.reshape((-1,) + tails.shape[len(shape):])
    lam = f["lyapunov"][...].reshape(tails.shape[0], -1) if "lyapunov" in f else None
    err = f["lyapunov_stderr"][...].reshape(tails.shape[0], -1) if "lyapunov_stderr" in f else None
    codes = np.full(tails.shape[0], LABELS.index("unresolved"), dtype=np.int8)
    periods = np.full(tails.shape[0], -1, dtype=np.int32)
    for i in range(tails.shape[0]):
        se = None if err is None or not np.all(err[i] >= 0) else err[i]
        try:
            result = classify(tails[i], None if lam is None else lam[i], se, thresholds=thresholds)
        except AnalysisError:
            continue
        codes[i] = LABELS.index(result.label)
        periods[i] = -1 if result.period is None else result.period
    return codes.reshape(shape), periods.reshape(shape)


def point_labels(path, thresholds: Thresholds = Thresholds()):
    """(label codes, periods) of every grid point of a sweep file (grid shape), MISSING where not done."""
    with h5py.File(os.fspath(path), "r") as f:
        if "evidence" in f:
            codes, periods = decide_points(f["evidence"][...], thresholds)
        else:
            codes, periods = _labels_from_tails(f, thresholds)
        done = f["done"][...].astype(bool)
    codes[~done] = MISSING
    return codes, periods


def analyze(path, thresholds: Thresholds = Thresholds()) -> dict:
    """Classify every computed point of a sweep file and (re)write its ``analysis`` group: ``label`` (int8
    codes into the ``labels`` attribute, -1 = not computed), ``period`` (-1 = none), the grid coordinates,
    and attributes ``thresholds`` and ``fractions`` (JSON). Returns the class fractions."""
    from .store import attach, dimension, read_attrs
    attrs = read_attrs(path)
    if attrs.get("kind") != "sweep":
        raise StoreError(f"{os.fspath(path)!r} is not a sweep file (kind = {attrs.get('kind')!r})")
    codes, periods = point_labels(path, thresholds)
    computed = codes[codes != MISSING]
    fractions = {label: float(np.mean(computed == i)) if computed.size else float("nan")
                 for i, label in enumerate(LABELS)}
    with h5py.File(os.fspath(path), "r+") as f:
        if "analysis" in f:
            del f["analysis"]
        group = f.create_group("analysis")
        scales = [dimension(group, name, f[name][...]) for name in attrs["axes"]]
        attach(group.create_dataset("label", data=codes), *scales)
        attach(group.create_dataset("period", data=periods), *scales)
        group.attrs.update({"labels": json.dumps(LABELS), "thresholds": json.dumps(thresholds.__dict__, default=str),
                            "fractions": json.dumps(fractions), "points_classified": int(computed.size)})
    return fractions


__all__ = ["point_evidence", "decide_points", "point_labels", "analyze", "MISSING"]
