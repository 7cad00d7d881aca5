"""Attractor labels of whole sweeps: decided from the evidence the workers stored (:mod:`.evidence`) and written
by ``meanfield analyze`` into the ``analysis`` group of the sweep file (docs/storage.md §4). Files are read and
written through :mod:`.store`.
"""
from __future__ import annotations

import json

import numpy as np

from ...analysis import LABELS, Thresholds, classify
from ...analysis.classify import decide
from ...analysis.evidence import EVIDENCE
from ...analysis.labels import MISSING, label_code
from ...errors import AnalysisError, StoreError
from ..store import datasets, read_sweep, write_analysis


def decide_points(evidence: np.ndarray, thresholds: Thresholds = Thresholds(), keys=EVIDENCE):
    """Label codes (indices into :data:`LABELS`) and periods (-1: none) from stored evidence (…, len(keys)).

    ``keys`` are the evidence keys the file was written with (its ``evidence_keys`` attribute); evidence of
    another classifier version cannot be decided by today's rules (StoreError: re-run the sweep, or classify
    stored tails)."""
    if tuple(keys) != EVIDENCE:
        raise StoreError(f"the stored evidence has keys {list(keys)} of an older classifier; today's rules need "
                         f"{list(EVIDENCE)}: re-run the sweep (or store tails, record.tail, to classify them)")
    flat = evidence.reshape(-1, len(EVIDENCE))
    codes = np.full(flat.shape[0], label_code("unresolved"), dtype=np.int8)
    periods = np.full(flat.shape[0], -1, dtype=np.int32)
    for i, row in enumerate(flat):
        if np.all(np.isnan(row)):
            continue                     # nothing measured (series too short): "unresolved"
        result = decide(dict(zip(EVIDENCE, row.tolist())), thresholds)
        codes[i] = label_code(result.label)
        periods[i] = -1 if result.period is None else result.period
    return codes.reshape(evidence.shape[:-1]), periods.reshape(evidence.shape[:-1])


def _labels_from_tails(data, thresholds: Thresholds):
    """Sweep files without current evidence (none, or an older classifier's): classify the stored mo_se tails."""
    if "tail_mo_se" not in data.arrays:
        raise StoreError(f"{data.path!r} has neither classification evidence nor an mo_se tail to classify")
    tails = data.arrays["tail_mo_se"]
    shape = data.arrays["done"].shape
    tails = tails.reshape((-1,) + tails.shape[len(shape):])
    lam = data.arrays["lyapunov"].reshape(tails.shape[0], -1) if "lyapunov" in data.arrays else None
    err = data.arrays["lyapunov_stderr"].reshape(tails.shape[0], -1) if "lyapunov_stderr" in data.arrays else None
    codes = np.full(tails.shape[0], label_code("unresolved"), dtype=np.int8)
    periods = np.full(tails.shape[0], -1, dtype=np.int32)
    # the stored model and decimation say the forcing period; reading a file never validates its run again
    forcing = data.model().forcing_period(int(data.run["record"]["every"]))
    for i in range(tails.shape[0]):
        se = None if err is None or not np.all(err[i] >= 0) else err[i]
        try:
            result = classify(tails[i], None if lam is None else lam[i], se, forcing_period=forcing,
                              thresholds=thresholds)
        except AnalysisError:
            continue
        codes[i] = label_code(result.label)
        periods[i] = -1 if result.period is None else result.period
    return codes.reshape(shape), periods.reshape(shape)


def point_labels(path, thresholds: Thresholds = Thresholds()):
    """(label codes, periods) of every grid point of a sweep file (grid shape), MISSING where not done."""
    data = read_sweep(path, ("done", "evidence"))
    keys = tuple(data.attrs.get("evidence_keys", ()))
    if "evidence" in data.arrays and keys == EVIDENCE:
        codes, periods = decide_points(data.arrays["evidence"], thresholds, keys)
    elif "evidence" in data.arrays and "tail_mo_se" not in datasets(path):
        codes, periods = decide_points(data.arrays["evidence"], thresholds, keys)   # StoreError: stale evidence
    else:
        data = read_sweep(path, ("done", "tail_mo_se", "lyapunov", "lyapunov_stderr"))
        codes, periods = _labels_from_tails(data, thresholds)
    codes[~data.arrays["done"].astype(bool)] = MISSING
    return codes, periods


def rotations(ds, codes: np.ndarray, periods: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rotation, lock_p, lock_k) of every grid point: the rotation number (turns per forcing period q, folded to
    [0, 1/2]) of a point labelled ``quasi_periodic`` with one torus generator — q times the generator the
    classifier measured from the spectral lines (``frequency1``, docs/classification.md §4), the quantity
    :func:`meanfield.analysis.rotation_number` measures from the orbit's angles — and of a ``periodic`` point whose
    cycle is locked on an invariant circle, p/k exactly (:func:`meanfield.analysis.rotation.locked_rotation`), with p
    and k (k = period / gcd(period, q) points of the q-step map; 0 where not locked). NaN (and 0) elsewhere, and
    everywhere when the Dataset ``ds`` holds no evidence of today's classifier."""
    rotation, p, k = np.full(codes.shape, np.nan), np.zeros(codes.shape, np.int64), np.zeros(codes.shape, np.int64)
    if "evidence" not in ds or tuple(ds["evidence_key"].values.tolist()) != EVIDENCE:
        return rotation, p, k
    evidence = ds["evidence"]
    frequency, dim, q = (evidence.sel(evidence_key=key).values for key in ("frequency1", "torus_dim",
                                                                          "forcing_period"))
    torus = (codes == label_code("quasi_periodic")) & (dim == 1)
    locked = (codes == label_code("periodic")) & np.isfinite(frequency)
    rotation[torus | locked] = (frequency * q)[torus | locked]
    k[locked] = periods[locked] // np.gcd(periods[locked], q[locked].astype(np.int64))
    p[locked] = np.rint(rotation[locked] * k[locked]).astype(np.int64)
    return rotation, p, k


def analyze(path, thresholds: Thresholds = Thresholds(), write: bool = True, transitions=None) -> dict:
    """Classify every computed point of a sweep file and (re)write its ``analysis`` group: ``label`` (int8
    codes into the ``labels`` attribute, -1 = not computed), ``period`` (-1 = none), the grid coordinates,
    and attributes ``thresholds`` and ``fractions`` (JSON), and ``transitions`` (JSON list of
    :class:`~meanfield.sweeps.results.refine.Transition` fields) when given. Returns the class fractions.
    ``write=False`` only classifies (e.g. the finished points of a sweep still running)."""
    codes, periods = point_labels(path, thresholds)
    computed = codes[codes != MISSING]
    fractions = {label: float(np.mean(computed == i)) if computed.size else float("nan")
                 for i, label in enumerate(LABELS)}
    if not write:
        return fractions
    write_analysis(path, codes, periods, {"labels": json.dumps(LABELS),
                                          "thresholds": json.dumps(thresholds.__dict__, default=str),
                                          "fractions": json.dumps(fractions), "points_classified": int(computed.size),
                                          **({} if transitions is None else
                                             {"transitions": json.dumps([t.__dict__ for t in transitions])})})
    return fractions


__all__ = ["analyze", "decide_points", "point_labels"]
