"""The rest cycle's Neimark–Sacker curve against the labels of a β_att × β_o phase-diagram sweep
(docs/bifurcations.md §10).

Usage: python bench/curves_phase_diagram.py FILE
FILE is a sweep of runs/phase_diagram.toml or of a part of its grid (fewer β_o columns, a coarser grid). The
curve is traced over the file's β_att range; every fixed_point → non-fixed label change between neighbouring
β_o points of a row is reported as within one grid cell of the curve (the curve's β_o at that β_att, linearly
interpolated between curve points, lies in the change's bracket or less than one cell from it) or not, and
every change not inside its bracket is listed.
"""
import sys

import numpy as np

import meanfield as mf
from meanfield.analysis import LABELS


def main(path: str) -> None:
    ds = mf.sweep_results(path)
    labels, periods = ds["label"].values, ds["period"].values
    beta_o, beta_att = ds["beta_o"].values, ds["beta_att"].values
    cell = float(np.diff(beta_o).max())
    model = mf.presets.paper()
    point, = mf.bifurcations(model, "beta_o", (1.24, 1.245))
    curve = mf.bifurcation_curve(model, point, "beta_att", (float(beta_att.min()), float(beta_att.max())))
    order = np.argsort(curve.values[:, 1])
    along, across = curve.values[order, 1], curve.values[order, 0]
    counts = {"inside": 0, "within one cell": 0, "further": 0}
    for i, b in enumerate(beta_att):
        ns = float(np.interp(b, along, across))
        for j in range(len(beta_o) - 1):
            below, above = (LABELS[c] if c >= 0 else "missing" for c in labels[i, j:j + 2])
            if below != "fixed_point" or above == "fixed_point":
                continue
            lo, hi = beta_o[j], beta_o[j + 1]
            distance = 0.0 if lo <= ns <= hi else min(abs(ns - lo), abs(ns - hi))
            counts["inside" if distance == 0 else "within one cell" if distance <= cell else "further"] += 1
            if distance > 0:
                print(f"beta_att = {b:.4f}: fixed_point -> {above}({periods[i, j + 1]}) between beta_o = {lo:.4f} "
                      f"and {hi:.4f}; the curve is at {ns:.5f} ({distance:.4f} away, cell {cell:.4f})")
    print(f"{len(curve.values)} curve points over beta_att in [{beta_att.min()}, {beta_att.max()}]; changes: {counts}")


if __name__ == "__main__":
    main(sys.argv[1])
