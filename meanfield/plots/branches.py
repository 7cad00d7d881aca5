"""Continued orbit branches over a bifurcation diagram, and their multipliers (docs/bifurcations.md).

A branch is the ``branch`` dict of what :func:`meanfield.bifurcations` returns (``value``, ``points``,
``multipliers``, ``stable`` per continuation point). Each of the orbit's points is one curve of the chosen
window entry against the parameter, solid where the orbit is stable and dashed where it is not; the lower panel
shows the largest multiplier modulus, with the unit circle's |μ| = 1 as a line and the located bifurcations
marked on both panels by kind (F fold, PD period doubling, NS Neimark–Sacker; their legend below the figure,
:func:`~meanfield.plots.style.mark_bifurcations`).
"""
from __future__ import annotations

import numpy as np

from .style import label, mark_bifurcations, paper_style, plt


def _pieces(stable: np.ndarray):
    """Runs of equal stability as (start, stop, stable), each run sharing its end point with the next."""
    cuts = np.flatnonzero(np.diff(stable.astype(int))) + 1
    edges = np.concatenate([[0], cuts, [stable.size]])
    return [(a, min(b + 1, stable.size), bool(stable[a])) for a, b in zip(edges[:-1], edges[1:])]


@paper_style
def branches_figure(branches: list, bifurcations: list, *, diagram=None, windows=None, entry: int = 0,
                    parameter: str = r"$\beta_o$", entry_label: str | None = None, title: str | None = None):
    """The figure: ``branches`` [(name, branch dict, colour)], ``bifurcations`` (located points, marked on
    both panels), ``diagram`` an optional (values, samples) scatter of simulated orbits drawn beneath,
    ``windows`` the parameter ranges [(lo, hi), ...] shown side by side (default: everything in one); the
    y label defaults to feature ``entry`` of the attention output (the newest window row), ``title`` names the
    model (:func:`meanfield.plots.data.model_caption`)."""
    from matplotlib.lines import Line2D
    windows = windows or [None]
    fig, axes = plt.subplots(2, len(windows), figsize=(8.0, 5.6), sharey="row", height_ratios=(3, 2),
                             squeeze=False, layout="constrained")
    kinds = {}
    for column, window in enumerate(windows):
        top, bottom = axes[0, column], axes[1, column]
        shown = [p for p in bifurcations if window is None or window[0] <= p.value <= window[1]]
        for handle in _draw(top, bottom, branches, shown, diagram, entry):
            kinds[handle.get_label()] = handle
        if window is not None:
            for ax in (top, bottom):
                ax.set_xlim(*window)
        bottom.set_xlabel(parameter)
        top.tick_params(labelbottom=False)
    axes[0, 0].set_ylabel(entry_label or label("att", entry))
    axes[1, 0].set_ylabel(r"largest multiplier $\max|\mu|$")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    for ax in axes[0, 1:]:
        more, names = ax.get_legend_handles_labels()
        handles, labels = handles + more, labels + names
    unique = dict(zip(labels, handles))
    if diagram is not None:
        unique["simulated orbits"] = Line2D([], [], ls="none", marker=".", ms=3, color="0.55")
    unique.update(kinds)
    fig.legend(list(unique.values()), list(unique.keys()), loc="outside lower center", ncol=3, frameon=False)
    if title:
        fig.suptitle(title, x=0.01, ha="left")
    return fig


def _draw(top, bottom, branches, bifurcations, diagram, entry) -> list:
    """One window's branches; the legend handles of the bifurcation kinds marked in it."""
    if diagram is not None:
        values, samples = diagram
        top.scatter(np.repeat(values, samples.shape[1]), samples.ravel(), s=0.05, color="0.55", lw=0,
                    rasterized=True)
    for name, branch, colour in branches:
        value, stable = branch["value"], branch["stable"]
        orbit = branch["points"][:, :, entry]
        modulus = np.abs(branch["multipliers"]).max(axis=1)
        for a, b, is_stable in _pieces(stable):
            style = "-" if is_stable else "--"
            text = f"{name} ({'stable' if is_stable else 'unstable'})"
            top.plot(value[a:b], orbit[a:b], style, color=colour, lw=0.8, label=text)
            bottom.plot(value[a:b], modulus[a:b], style, color=colour, lw=0.8)
    bottom.axhline(1.0, color="black", lw=0.5)
    bottom.set_yscale("log")
    mark_bifurcations(bottom, bifurcations)
    return mark_bifurcations(top, bifurcations)
