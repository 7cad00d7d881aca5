"""The basin-boundary measures of a stored basin map (docs/basins.md §7): basin entropy S_b and boundary basin
entropy S_bb with the log 2 criterion (:func:`meanfield.analysis.basin_entropy`, docs/basins.md §1) and the
uncertainty exponent α ± SE of the map (:func:`meanfield.analysis.basins.map_uncertainty_exponent`, §2), as
``meanfield analyze`` prints them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...analysis.basins import basin_entropy, map_uncertainty_exponent
from ...errors import AnalysisError
from ..store.basins import open_basins

#: Box side of the basin entropy, in cells (Daza et al. 2016 use 5).
BOX = 5
#: Perturbations of the uncertainty exponent, in cells (those below a quarter of the map's smaller side).
CELLS = (1, 2, 4, 8, 16)


def cells_for(shape: tuple) -> tuple:
    """The :data:`CELLS` a map of ``shape`` allows (at most a quarter of its smaller side)."""
    return tuple(k for k in CELLS if 4 * k <= min(shape))


@dataclass(frozen=True)
class BasinMeasures:
    """The measures of one basin map: ``entropy`` S_b, ``boundary_entropy`` S_bb (``fractal_by_log2``: S_bb >
    ln 2, a sufficient condition for a fractal boundary), ``alpha`` ± ``alpha_stderr`` (NaN when no start is
    uncertain at some ε, e.g. a map of one id) with ``fractions`` f(ε) at the ε the map allows (``cells_for``),
    ``unsettled`` the fraction of starts with id −1 (settled on no attractor), ``map_fraction`` per id."""

    entropy: float
    boundary_entropy: float
    alpha: float
    alpha_stderr: float
    fractions: np.ndarray
    unsettled: float
    map_fraction: np.ndarray

    @property
    def fractal_by_log2(self) -> bool:
        return self.boundary_entropy > np.log(2.0)


def basin_measures(path) -> BasinMeasures:
    """The measures of the basin map stored in the sweep file ``path`` (KeyError when it holds none)."""
    ds = open_basins(path)
    ids = ds["id"].values
    entropy, boundary = basin_entropy(ids, box=BOX)
    try:
        alpha, stderr, fractions = map_uncertainty_exponent(ids, cells_for(ids.shape))
    except AnalysisError:
        alpha = stderr = np.nan
        fractions = np.full(len(cells_for(ids.shape)), np.nan)
    return BasinMeasures(entropy=entropy, boundary_entropy=boundary, alpha=alpha, alpha_stderr=stderr,
                         fractions=fractions, unsettled=float(np.mean(ids < 0)),
                         map_fraction=np.array([np.mean(ids == k) for k in ds["attractor"].values]))


def basin_report(path) -> list[str]:
    """Lines for ``meanfield analyze``: the map's size, fractions and measures; none when the file holds no
    complete map."""
    try:
        ds = open_basins(path)
    except KeyError:
        return []
    if not ds.attrs.get("complete", False):
        return []
    m = basin_measures(path)
    shares = ", ".join(f"#{k} p{int(p)} {f:.1%}" for k, p, f in zip(ds["attractor"].values, ds["period"].values,
                                                                     m.map_fraction))
    log2 = ">" if m.fractal_by_log2 else "<="
    return [f"basin map {ds.sizes['u']} x {ds.sizes['v']}: {shares}; unsettled {m.unsettled:.2%}",
            f"  basin entropy S_b = {m.entropy:.4f}, boundary S_bb = {m.boundary_entropy:.4f} ({log2} ln 2 = 0.6931"
            f"{': fractal boundary' if m.fractal_by_log2 else ''}; box {BOX})",
            f"  uncertainty exponent alpha = {m.alpha:.3f} +/- {m.alpha_stderr:.3f} "
            f"(eps = {list(cells_for(ds['id'].shape))} cells)"]


__all__ = ["BasinMeasures", "basin_measures", "basin_report", "cells_for", "BOX", "CELLS"]
