"""Figures of the PID comparison (docs/model.md §5.4): side-by-side density bifurcation diagrams on one β_o grid
(one colour scale for the row), λ1(β_o) overlaid, and class maps over (β_o, gain). Variants keep one panel
position and one colour each (:func:`meanfield.studies.comparison.variant_order`, :data:`VARIANT_COLOURS`)
whatever the order of the files. Divergent points are drawn as a class of their own (red ticks, red cells) and
never as numbers: no NaN or inf reaches a plot."""
from __future__ import annotations

import numpy as np

from ..studies.comparison import CLASSES, structure
from .bifurcation import plot_density_bifurcation
from .data import model_caption
from .style import AXIS_SYMBOLS, CLASS_COLOURS, draw_class_grid, follow_data, legend_outside, paper_style, plt
from .style import class_legend as _legend

#: One colour per controller structure; a second sweep of the same structure gets the next dash pattern.
VARIANT_COLOURS = {"none": "k", "P": "tab:blue", "PI": "tab:orange", "PD": "tab:green", "PID": "tab:red",
                   "I": "tab:purple", "D": "tab:brown", "ID": "tab:pink"}
DASHES = ("-", (0, (4, 2)), (0, (1, 1.5)), "-.")


def variant_styles(lines) -> list:
    """Line style (colour by structure, dashes for repeats) of every 1-D sweep, in the order given."""
    seen = {}
    styles = []
    for sweep in lines:
        kind = structure(sweep.model)
        repeat = seen.get(kind, 0)
        seen[kind] = repeat + 1
        styles.append({"color": VARIANT_COLOURS.get(kind, "0.4"), "ls": DASHES[repeat % len(DASHES)]})
    return styles


def _divergent_ticks(ax, sweep):
    bad = sweep.coords["beta_o"][sweep.labels == "divergent"]
    if bad.size:
        ax.plot(bad, np.full(bad.size, 0.98), "|", color="tab:red", ms=6, transform=ax.get_xaxis_transform(),
                label="divergent")


def draw_bifurcations(axes, lines, rows=None) -> None:
    """One density bifurcation diagram (``hist`` of mo_se feature 1) per 1-D sweep, in ``axes``, titled with
    the variant in its colour; one y range for the row, following the data."""
    styles = variant_styles(lines)
    low, high = np.inf, -np.inf
    for i, (ax, sweep) in enumerate(zip(axes, lines)):
        plot_density_bifurcation(sweep.path, feature=0, band=False, ax=ax, colorbar=False)
        gains = rows[i]["gains"] if rows else ""
        ax.set_title("", loc="left")
        ax.set_title(f"{sweep.name}\n{gains}", color=styles[i]["color"])
        _divergent_ticks(ax, sweep)
        if i:
            ax.set_ylabel("")
        occupied = np.flatnonzero(~np.ma.getmaskarray(ax.images[-1].get_array()).all(axis=1))
        if occupied.size:                    # image rows are the y-bins: the range of the bins visited
            y0, y1 = ax.images[-1].get_extent()[2:]
            width = (y1 - y0) / ax.images[-1].get_array().shape[0]
            low, high = min(low, y0 + occupied[0] * width), max(high, y0 + (occupied[-1] + 1) * width)
    for ax in axes:
        follow_data(ax, low, high)


def draw_lambda1(ax, lines) -> None:
    """λ1(β_o) of every 1-D sweep overlaid in its variant's style; divergent or non-finite points are left out
    (and counted in the legend)."""
    low, high = np.inf, -np.inf
    for sweep, style in zip(lines, variant_styles(lines)):
        lam = sweep.arrays.get("lyapunov")
        if lam is None:
            continue
        beta = sweep.coords["beta_o"]
        keep = sweep.done & (sweep.labels != "divergent") & np.isfinite(lam[:, 0])   # β_o = 0: λ1 = -inf
        n_bad = int(np.sum(sweep.labels == "divergent"))
        ax.plot(beta[keep], lam[keep, 0], lw=1.0, label=sweep.name + (f" ({n_bad} divergent)" if n_bad else ""),
                **style)
        if keep.any():
            low, high = min(low, lam[keep, 0].min()), max(high, lam[keep, 0].max())
    ax.axhline(0, color="0.5", lw=0.6)
    follow_data(ax, low, high)
    ax.set_xlabel(r"$\beta_o$")
    ax.set_ylabel(r"$\lambda_1$ (per step)")
    legend_outside(ax, handlelength=2.5)


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
    ax.set_title(sweep.name)


def class_legend(fig, labels_present) -> None:
    _legend(fig, labels_present, order=list(CLASSES))


@paper_style
def comparison_figure(lines, rows, maps):
    """The whole figure set in one figure: bifurcation diagrams with one colour bar (top row), the λ1 overlay
    and the class maps (bottom row), the class legend below; titled with the model the variants share."""
    n_top = max(len(lines), 1)
    n_bottom = 1 + len(maps)
    fig = plt.figure(figsize=(max(7.0, 1.9 * n_top + 0.8), 5.4), layout="constrained")
    top_fig, bottom_fig = fig.subfigures(2, 1, height_ratios=[1.0, 1.05])
    if lines:
        axes = top_fig.subplots(1, n_top, sharey=True, squeeze=False)[0]
        draw_bifurcations(axes, lines, rows)
        image = axes[0].images[0]
        bar = top_fig.colorbar(image, ax=list(axes), pad=0.01, fraction=0.03, aspect=20)
        bar.set_label("fraction of steps in bin")
    bottom = bottom_fig.subplots(1, n_bottom, squeeze=False, width_ratios=[1.6] + [1] * len(maps))[0]
    if lines:
        draw_lambda1(bottom[0], lines)
    else:
        bottom[0].set_axis_off()
    for k, sweep in enumerate(maps):
        draw_class_map(bottom[1 + k], sweep)
    present = set()
    for sweep in list(lines) + list(maps):
        present |= set(np.unique(sweep.labels.astype(str)))
    class_legend(bottom_fig, present)
    first = (list(lines) + list(maps))[0]
    fig.suptitle("PID variants of the " + model_caption(first.model.to_dict(), first.axes), x=0.01, ha="left")
    return fig


@paper_style
def fractions_figure(rows):
    """Stacked bars of the class fractions per variant (in the comparison's order), legend outside."""
    fig, ax = plt.subplots(figsize=(0.8 * len(rows) + 2.4, 2.6), layout="constrained")
    bottom = np.zeros(len(rows))
    for c in CLASSES:
        values = np.nan_to_num(np.array([r[c] for r in rows]))
        ax.bar([r["variant"] for r in rows], values, bottom=bottom, color=CLASS_COLOURS[c], label=c.replace("_", " "),
               edgecolor="k", lw=0.3)
        bottom += values
    ax.set_ylabel(r"fraction of the $\beta_o$ grid")
    ax.tick_params(axis="x", labelrotation=30)
    legend_outside(ax)
    return fig


__all__ = ["CLASS_COLOURS", "VARIANT_COLOURS", "variant_styles", "draw_bifurcations", "draw_lambda1",
           "draw_class_map", "comparison_figure", "fractions_figure"]
