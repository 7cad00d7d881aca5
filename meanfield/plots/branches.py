"""Continued orbit branches over a bifurcation diagram, and their multipliers (docs/bifurcations.md).

A branch is the ``branch`` dict of what :func:`meanfield.bifurcations` returns (``value``, ``points``,
``multipliers``, ``stable`` per continuation point). Each of the orbit's points is one curve of the chosen
window entry against the parameter, solid where the orbit is stable and dashed where it is not; the lower panel
shows the largest multiplier modulus, with the unit circle's |μ| = 1 as a line and the located bifurcations
marked (F fold, PD period doubling, NS Neimark–Sacker).
"""
from __future__ import annotations

import numpy as np

from .style import paper_style, plt


def _pieces(stable: np.ndarray):
    """Runs of equal stability as (start, stop, stable), each run sharing its end point with the next."""
    cuts = np.flatnonzero(np.diff(stable.astype(int))) + 1
    edges = np.concatenate([[0], cuts, [stable.size]])
    return [(a, min(b + 1, stable.size), bool(stable[a])) for a, b in zip(edges[:-1], edges[1:])]


@paper_style
def branches_figure(branches: list, bifurcations: list, *, diagram=None, windows=None, entry: int = 0,
                    parameter: str = "β_o", entry_label: str = "a_1"):
    """The figure: ``branches`` [(name, branch dict, colour)], ``bifurcations`` (located points, marked on
    both panels), ``diagram`` an optional (values, samples) scatter of simulated orbits drawn beneath,
    ``windows`` the parameter ranges [(lo, hi), ...] shown side by side (default: everything in one)."""
    windows = windows or [None]
    fig, axes = plt.subplots(2, len(windows), figsize=(7, 4.8), sharey="row", height_ratios=(3, 2),
                             squeeze=False)
    for column, window in enumerate(windows):
        top, bottom = axes[0, column], axes[1, column]
        _draw(top, bottom, branches, bifurcations, diagram, entry)
        if window is not None:
            for ax in (top, bottom):
                ax.set_xlim(*window)
        bottom.set_xlabel(parameter)
        top.tick_params(labelbottom=False)
    axes[0, 0].set_ylabel(entry_label)
    axes[1, 0].set_ylabel("max |μ|")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    fig.legend(list(unique.values()), list(unique.keys()), loc="upper center", ncol=2, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    return fig


def _draw(top, bottom, branches, bifurcations, diagram, entry):
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
            label = f"{name} ({'stable' if is_stable else 'unstable'})"
            top.plot(value[a:b], orbit[a:b], style, color=colour, lw=0.8, label=label)
            bottom.plot(value[a:b], modulus[a:b], style, color=colour, lw=0.8)
    bottom.axhline(1.0, color="black", lw=0.5)
    bottom.set_yscale("log")
    for point in bifurcations:
        for ax in (top, bottom):
            ax.axvline(point.value, color="0.3", lw=0.5, ls=":")
        short = {"fold": "F", "period_doubling": "PD", "neimark_sacker": "NS"}[point.kind]
        bottom.annotate(short, (point.value, 1.0), xytext=(2, -9), textcoords="offset points", fontsize=6,
                        clip_on=True, annotation_clip=True)
