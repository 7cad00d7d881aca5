"""Attractors continued along a parameter, in their own colours, over their basin fractions (docs/attractors.md §3).

Upper panel: every attractor id drawn in its colour — a cycle's points (one feature of the newest attention row)
as dots, an aperiodic set's measure as its 5–95 % quantile range of that feature; hollow markers where the
attractor is present only through the start carried from the previous value (fraction 0). Lower panel: the basin
fractions stacked in id order (the "basin curves" plot), the unresolved share on top in grey. With a second
continuation run the other way, its attractors are overlaid in black to show hysteresis.
"""
from __future__ import annotations

import numpy as np

from .style import paper_style, plt


def _colours(n: int):
    cmap = plt.get_cmap("tab20" if n > 10 else "tab10")
    return [cmap(i % cmap.N) for i in range(n)]


def _draw_attractors(ax, run, feature: int, colours=None) -> None:
    for value, census, ids in zip(run.values, run.censuses, run.ids):
        for attractor, i in zip(census.attractors, ids):
            colour = "k" if colours is None else colours[i]
            hollow = attractor.fraction == 0
            if attractor.period > 0:
                y = attractor.points[:, feature]
                ax.scatter(np.full(y.size, value), y, s=4 if colours is not None else 2, marker="o",
                           facecolors="none" if hollow else colour, edgecolors=colour, linewidths=0.5, zorder=2)
            else:
                q = attractor.summary[:, feature]
                lo, hi = q[int(0.05 * q.size)], q[int(0.95 * q.size) - 1]
                ax.vlines(value, lo, hi, colors=colour, linewidth=1.2, alpha=0.5 if hollow else 1.0)


@paper_style
def attractors_figure(run, *, backward=None, feature: int = 0, parameter: str = "β_o",
                      feature_label: str = "newest attention row, feature 1"):
    """The figure for an :class:`~meanfield.census.AttractorContinuation` ``run`` (and optionally ``backward``,
    the same values run the other way)."""
    colours = _colours(max(run.n_ids, 1))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5), sharex=True, height_ratios=(3, 2))
    if backward is not None:
        _draw_attractors(top, backward, feature)
    _draw_attractors(top, run, feature, colours)
    top.set_ylabel(feature_label)
    order = np.argsort(run.values)
    values, fractions = run.values[order], np.nan_to_num(run.fractions()[order])
    unresolved = np.array([c.unresolved_fraction for c in run.censuses])[order]
    bottom.stackplot(values, *fractions.T, unresolved, colors=colours[:fractions.shape[1]] + ["0.8"],
                     step=None, linewidth=0)
    bottom.set_ylim(0, 1)
    bottom.set_ylabel("basin fraction")
    bottom.set_xlabel(parameter)
    fig.align_ylabels()
    return fig


__all__ = ["attractors_figure"]
