"""Attractors continued along a parameter, in their own colours, over their basin fractions (docs/attractors.md §3).

Drawn from a continuation dataset (:meth:`meanfield.census.AttractorContinuation.to_dataset`, or a sweep file's
``attractors/up`` group, docs/storage.md §7). Upper panel: every attractor id in its colour — a cycle's points
(one feature of the newest attention row) as dots, an aperiodic set's measure as its 5–95 % quantile range of
that feature; hollow markers where the attractor is present only through the start carried from the neighbouring
value (fraction 0). Lower panel: the basin fractions stacked in id order (the "basin curves" plot), the
unresolved share on top in grey. With the continuation the other way (``backward``), its attractors are
overlaid in black to show hysteresis.
"""
from __future__ import annotations

import numpy as np

from .style import paper_style, plt


def _colours(n: int):
    cmap = plt.get_cmap("tab20" if n > 10 else "tab10")
    return [cmap(i % cmap.N) for i in range(n)]


def _draw_attractors(ax, ds, feature: int, colours=None) -> None:
    axis = ds["fraction"].dims[0]
    period, fraction = ds["period"].values, ds["fraction"].values
    points, summary = ds["points"].values[..., feature], ds["summary"].values[..., feature]
    for v, value in enumerate(ds[axis].values):
        for i in np.flatnonzero(period[v] >= 0):
            colour = "k" if colours is None else colours[i]
            hollow = fraction[v, i] == 0
            if period[v, i] > 0:
                y = points[v, i, :period[v, i]]
                ax.scatter(np.full(y.size, value), y, s=4 if colours is not None else 2, marker="o",
                           facecolors="none" if hollow else colour, edgecolors=colour, linewidths=0.5, zorder=2)
            else:
                q = summary[v, i]
                lo, hi = q[int(0.05 * q.size)], q[int(0.95 * q.size) - 1]
                ax.vlines(value, lo, hi, colors=colour, linewidth=1.2, alpha=0.5 if hollow else 1.0)


@paper_style
def attractors_figure(ds, *, backward=None, feature: int = 0, parameter: str | None = None,
                      feature_label: str = "newest attention row, feature 1"):
    """The figure of a continuation dataset ``ds`` over one parameter (and optionally ``backward``, the same
    values continued the other way); ``parameter`` labels the x axis (default: the dataset's axis name)."""
    axis = ds["fraction"].dims[0]
    fractions = np.nan_to_num(ds["fraction"].values)
    colours = _colours(max(fractions.shape[1], 1))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5), sharex=True, height_ratios=(3, 2))
    if backward is not None:
        _draw_attractors(top, backward, feature)
    _draw_attractors(top, ds, feature, colours)
    top.set_ylabel(feature_label)
    bottom.stackplot(ds[axis].values, *fractions.T, ds["unresolved"].values,
                     colors=colours[:fractions.shape[1]] + ["0.8"], linewidth=0)
    bottom.set_ylim(0, 1)
    bottom.set_ylabel("basin fraction")
    bottom.set_xlabel(parameter or axis)
    fig.align_ylabels()
    return fig


__all__ = ["attractors_figure"]
