"""Attractors continued along a parameter, in their own colours, over their basin fractions (docs/attractors.md §3).

Drawn from a continuation dataset (:meth:`meanfield.census.continuation.AttractorContinuation.to_dataset`, or a
sweep file's ``attractors/up`` group, docs/storage.md §7). Upper panel: every attractor id in its colour
(:func:`~meanfield.plots.style.attractor_colours`, the most populous first; beyond the named ones, "others") — a
cycle's points (one feature of the newest attention row) as dots, an aperiodic set's measure as a bar over its
5–95 % quantile range of that feature; hollow dots and faint bars where the attractor is present only through the
start carried from the neighbouring value (fraction 0). Lower panel: the basin fractions stacked in id order (the
"basin curves" plot), the unsettled share (starts on no attractor) on top in grey. With the continuation the
other way (``backward``), its attractors are drawn beneath in black, wider, so that they outline the forward ones
and stand alone where only the backward chain has them (hysteresis). Legends say all of this on the figure.
"""
from __future__ import annotations

import numpy as np

from .style import (
    UNSETTLED_COLOUR,
    attractor_colours,
    attractor_handles,
    attractor_names,
    label,
    paper_style,
    plt,
)


def _draw_attractors(ax, ds, feature: int, colours=None) -> None:
    """The attractors of ``ds`` in their ``colours`` {id: colour}, or as the black backward chain (None)."""
    axis = ds["fraction"].dims[0]
    period, fraction = ds["period"].values, ds["fraction"].values
    points, summary = ds["points"].values[..., feature], ds["summary"].values[..., feature]
    for v, value in enumerate(ds[axis].values):
        for i in np.flatnonzero(period[v] >= 0):
            colour = "k" if colours is None else colours[i]
            hollow = fraction[v, i] == 0
            if period[v, i] > 0:
                y = points[v, i, :period[v, i]]
                if colours is None:
                    ax.scatter(np.full(y.size, value), y, s=11, marker="o", facecolors="none", edgecolors="k",
                               linewidths=0.5, zorder=1)
                else:
                    ax.scatter(np.full(y.size, value), y, s=5, marker="o", facecolors="none" if hollow else colour,
                               edgecolors=colour, linewidths=0.5, zorder=2)
            else:
                q = summary[v, i]
                lo, hi = q[int(0.05 * q.size)], q[int(0.95 * q.size) - 1]
                width, alpha = (3.2, 1.0) if colours is None else (1.4, 0.45 if hollow else 1.0)
                ax.vlines(value, lo, hi, colors=colour, linewidth=width, alpha=alpha, zorder=2 - (colours is None))


def _most_often(codes: np.ndarray) -> dict:
    """{attractor id: the code it has most often where present (codes ≥ 0)} of a (value, attractor) array."""
    found = {}
    for i in range(codes.shape[1]):
        seen = codes[:, i][codes[:, i] >= 0]
        if seen.size:
            values, counts = np.unique(seen, return_counts=True)
            found[i] = int(values[np.argmax(counts)])
    return found


def _names(ds) -> dict:
    """Legend names of the ids: period and, for aperiodic sets, the class each has most often."""
    label_names = ds.attrs["label_names"].split()
    labels = {i: label_names[code] for i, code in _most_often(ds["label"].values).items()}
    return attractor_names(_most_often(ds["period"].values), labels)


def _encoding_legend(ax, backward: bool) -> None:
    """What the marks of the upper panel mean, above it."""
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], ls="none", marker="o", ms=4, color="tab:blue", label="cycle: its points"),
               Line2D([], [], color="tab:blue", lw=1.4, label="aperiodic set: 5–95 % range"),
               Line2D([], [], ls="none", marker="o", ms=4, mfc="none", color="tab:blue",
                      label="held only by the carried start")]
    if backward:
        handles.append(Line2D([], [], ls="none", marker="o", ms=6, mfc="none", color="k",
                              label="continued backward (black)"))
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=len(handles), frameon=False,
              borderaxespad=0.2, handletextpad=0.3, columnspacing=1.0)


@paper_style
def attractors_figure(ds, *, backward=None, feature: int = 0, parameter: str | None = None,
                      title: str | None = None):
    """The figure of a continuation dataset ``ds`` over one parameter (and optionally ``backward``, the same
    values continued the other way); ``parameter`` labels the x axis (default: the dataset's axis name),
    ``title`` names the run and model (:func:`meanfield.plots.data.model_caption`)."""
    from matplotlib.patches import Patch
    axis = ds["fraction"].dims[0]
    fractions = np.nan_to_num(ds["fraction"].values)
    ranked = [int(i) for i in np.argsort(-fractions.sum(axis=0), kind="stable")]
    colours = attractor_colours(ranked)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8.0, 5.6), sharex=True, height_ratios=(3, 2),
                                      layout="constrained")
    if backward is not None:
        _draw_attractors(top, backward, feature)
    _draw_attractors(top, ds, feature, colours)
    _encoding_legend(top, backward is not None)
    top.set_ylabel(label("att", feature))
    ids = range(fractions.shape[1])
    bottom.stackplot(ds[axis].values, *fractions.T, ds["unsettled"].values,
                     colors=[colours[i] for i in ids] + [UNSETTLED_COLOUR], linewidth=0)
    bottom.set_ylim(0, 1)
    bottom.set_ylabel("basin fraction (fresh starts)")
    bottom.set_xlabel(parameter or axis)
    handles = attractor_handles(_names(ds), colours)
    handles.append(Patch(color=UNSETTLED_COLOUR, label="unsettled starts"))
    fig.legend(handles=handles, loc="outside right upper", frameon=False, title="attractor id",
               title_fontsize=7)
    if title:
        fig.suptitle(title, x=0.01, ha="left")
    fig.align_ylabels()
    return fig


__all__ = ["attractors_figure"]
