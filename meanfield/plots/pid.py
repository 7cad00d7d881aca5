"""Figures of the PID comparison (docs/model.md §5.4): side-by-side density bifurcation diagrams on one β_o grid,
λ1(β_o) overlaid, and class maps over (β_o, gain). Divergent points are drawn as a class of their own (red
ticks, red cells) and never as numbers: no NaN or inf reaches a plot."""
from __future__ import annotations

import numpy as np

from ..studies.comparison import CLASSES
from .bifurcation import plot_density_bifurcation
from .style import AXIS_SYMBOLS, CLASS_COLOURS, draw_class_grid, plt
from .style import class_legend as _legend


def _divergent_ticks(ax, sweep):
    bad = sweep.coords["beta_o"][sweep.labels == "divergent"]
    if bad.size:
        ax.plot(bad, np.full(bad.size, 0.98), "|", color="tab:red", ms=6, transform=ax.get_xaxis_transform(),
                label="divergent")


def draw_bifurcations(axes, lines, rows=None) -> None:
    """One density bifurcation diagram (``hist`` of mo_se feature 1) per 1-D sweep, in ``axes``."""
    for i, (ax, sweep) in enumerate(zip(axes, lines)):
        plot_density_bifurcation(sweep.path, feature=0, band=False, ax=ax)
        gains = rows[i]["gains"] if rows else ""
        ax.set_title(f"{sweep.name}\n{gains}", fontsize=8)
        _divergent_ticks(ax, sweep)
        if i:
            ax.set_ylabel("")


def draw_lambda1(ax, lines) -> None:
    """λ1(β_o) of every 1-D sweep overlaid; divergent or non-finite points are left out (and counted)."""
    for sweep in lines:
        lam = sweep.arrays.get("lyapunov")
        if lam is None:
            continue
        beta = sweep.coords["beta_o"]
        keep = sweep.done & (sweep.labels != "divergent") & np.isfinite(lam[:, 0])   # β_o = 0: λ1 = -inf
        n_bad = int(np.sum(sweep.labels == "divergent"))
        ax.plot(beta[keep], lam[keep, 0], lw=0.9, label=sweep.name + (f" ({n_bad} divergent)" if n_bad else ""))
    ax.axhline(0, color="0.5", lw=0.6)
    ax.set_xlabel(r"$\beta_o$")
    ax.set_ylabel(r"$\lambda_1$")
    ax.legend(frameon=False, fontsize=7, ncol=3)


def draw_class_map(ax, sweep) -> None:
    """Class of every point of a 2-D sweep over (β_o, gain) as coloured cells."""
    labels = sweep.labels
    x_name, y_name = sweep.axes
    x, y = sweep.coords[x_name], sweep.coords[y_name]
    if x_name != "beta_o":
        labels, (x, y), (x_name, y_name) = labels.T, (y, x), (y_name, x_name)
    draw_class_grid(ax, labels, x, y)
    ax.set_xlabel(r"$\beta_o$")
    ax.set_ylabel(AXIS_SYMBOLS.get(y_name, y_name))
    ax.set_title(sweep.name, fontsize=8)


def class_legend(fig, labels_present) -> None:
    _legend(fig, labels_present, order=list(CLASSES))


def comparison_figure(lines, rows, maps):
    """The whole figure set in one figure: bifurcation diagrams (top row), λ1 overlay and class maps."""
    n_top = max(len(lines), 1)
    n_bottom = 1 + len(maps)
    fig = plt.figure(figsize=(max(2.4 * n_top, 3.2 * n_bottom), 5.8), layout="constrained")
    top_fig, bottom_fig = fig.subfigures(2, 1)
    top = top_fig.add_gridspec(1, n_top)
    bottom = bottom_fig.add_gridspec(1, n_bottom, width_ratios=[1.6] + [1] * len(maps))
    if lines:
        axes = [top_fig.add_subplot(top[i]) for i in range(n_top)]
        for ax in axes[1:]:
            ax.sharey(axes[0])
            ax.tick_params(labelleft=False)
        draw_bifurcations(axes, lines, rows)
        draw_lambda1(bottom_fig.add_subplot(bottom[0]), lines)
    for k, sweep in enumerate(maps):
        draw_class_map(bottom_fig.add_subplot(bottom[1 + k]), sweep)
    present = set()
    for sweep in list(lines) + list(maps):
        present |= set(np.unique(sweep.labels.astype(str)))
    class_legend(bottom_fig, present)
    return fig


def fractions_figure(rows):
    """Stacked bars of the class fractions per variant."""
    fig, ax = plt.subplots(figsize=(1.1 * len(rows) + 2.0, 2.6), constrained_layout=True)
    bottom = np.zeros(len(rows))
    for c in CLASSES:
        values = np.nan_to_num(np.array([r[c] for r in rows]))
        ax.bar([r["variant"] for r in rows], values, bottom=bottom, color=CLASS_COLOURS[c], label=c, edgecolor="k", lw=0.3)
        bottom += values
    ax.set_ylabel("fraction of β_o grid")
    ax.legend(frameon=False, fontsize=7, bbox_to_anchor=(1.0, 1.0), loc="upper left")
    return fig


__all__ = ["CLASS_COLOURS", "draw_bifurcations", "draw_lambda1", "draw_class_map", "comparison_figure",
           "fractions_figure"]
