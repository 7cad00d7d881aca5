"""The basin map of a sweep file as a heat map (docs/basins.md §7): every start of the plane coloured by the id
of its attractor (:func:`~meanfield.plots.style.attractor_colours`, ids in order, so id k has the k-th colour
of the census figure's palette), unsettled starts (on no attractor) in grey; the legend names each id by its
period (:func:`~meanfield.plots.style.attractor_names`, "p24 #2") with its share of the map.
"""
from __future__ import annotations

import numpy as np

from .style import UNSETTLED_COLOUR, attractor_colours, attractor_handles, attractor_names, paper_style, plt


def _axis_label(ds, k: int) -> str:
    """What the plane's coordinate k moves: one feature of every row (a feature plane), else a window direction."""
    direction = ds["direction"].values[k]
    moved = np.flatnonzero(np.any(direction != 0, axis=0))
    if moved.size == 1 and np.all(direction[:, moved[0]] == 1):
        return f"{'uv'[k]}: offset of feature {moved[0]} in every row"
    return f"{'uv'[k]}: along the direction to window {k}"


@paper_style
def basins_figure(ds, title: str | None = None):
    """The figure of a basin-map dataset ``ds`` (:func:`meanfield.sweeps.store.basins.open_basins`)."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    ids, u, v = ds["id"].values, ds["u"].values, ds["v"].values
    attractors = [int(i) for i in ds["attractor"].values]
    colours = attractor_colours(attractors)
    cmap = ListedColormap([UNSETTLED_COLOUR] + [colours[i] for i in attractors])
    fig, ax = plt.subplots(figsize=(5.6, 4.2), layout="constrained")
    du, dv = (u[-1] - u[0]) / (u.size - 1), (v[-1] - v[0]) / (v.size - 1)
    ax.imshow(ids.T + 1, origin="lower", cmap=cmap, vmin=-0.5, vmax=len(attractors) + 0.5, interpolation="nearest",
              extent=[u[0] - du / 2, u[-1] + du / 2, v[0] - dv / 2, v[-1] + dv / 2], aspect="auto")
    ax.set_xlabel(_axis_label(ds, 0))
    ax.set_ylabel(_axis_label(ds, 1))
    periods = dict(zip(attractors, (int(p) for p in ds["period"].values)))
    label_names = ds.attrs["label_names"]
    label_names = (label_names.split() if isinstance(label_names, str) else list(label_names))
    names = attractor_names(periods, {i: label_names[int(c)] for i, c in zip(attractors, ds["label"].values)})
    share = {i: float(np.mean(ids == i)) for i in attractors}
    handles = attractor_handles({i: f"{names[i]} ({share[i]:.1%})" for i in attractors}, colours)
    unsettled = float(np.mean(ids < 0))
    if unsettled > 0:
        handles.append(Patch(color=UNSETTLED_COLOUR, label=f"unsettled ({unsettled:.1%})"))
    fig.legend(handles=handles, loc="outside right upper", frameon=False, title="attractor id", title_fontsize=7)
    if title:
        fig.suptitle(title, x=0.01, ha="left")
    return fig


__all__ = ["basins_figure"]
