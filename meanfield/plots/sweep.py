"""Figures of a classified sweep: the class-coloured bifurcation diagram, the Lyapunov spectrum against the
swept parameter with class bands, the 2-D class map (phase diagram, docs/model.md §7.1) and the finite-N error.
The density form of the bifurcation diagram is :func:`meanfield.plots.bifurcation.plot_density_bifurcation`."""
from __future__ import annotations

import numpy as np

from ..analysis import LABELS
from ..errors import ConfigError
from ..sweeps.labels import MISSING, point_labels
from ..sweeps.store import read_refinements, read_sweep
from .bifurcation import mark_columns, plot_density_bifurcation
from .style import AXIS_SYMBOLS, BACKGROUND_ALPHA, CLASS_COLOURS, class_legend, draw_class_grid, label, plt

def _names(codes):
    table = np.array(list(LABELS) + ["missing"], dtype=object)
    return table[codes]                                # code -1 picks "missing"


def _one_axis(data):
    if len(data.axes) != 1:
        raise ConfigError(f"this figure needs a 1-D sweep; the file has axes {data.axes}")
    return data.axes[0], data.coords[data.axes[0]]


def _transitions(path):
    """Located transitions of a 1-D sweep (grid and refinement rounds), or [] when the file has none."""
    from ..sweeps.refine import classified_points, transitions
    return transitions(*classified_points(path)[1:])


def _mark_transitions(ax, found) -> None:
    """A thin dashed line at the middle of every located transition's bracket."""
    for t in found:
        ax.axvline(0.5 * (t.low + t.high), color="0.4", lw=0.5, ls="--", zorder=0)


def class_bifurcation(path, feature: int = 0, ax=None):
    """Bifurcation diagram coloured by the automatic class (the reference's second form, docs/model.md §7.1):
    fixed points and periodic orbits as all their visited values (occupied histogram bins), other classes as
    their Poincaré band points, divergent points (no orbit) as columns, at the grid's points and those of its
    refinement rounds; one colour-blind-safe colour per class, every class present in the legend, and the
    located transitions (docs/classification.md §9) as dashed lines."""
    from matplotlib.lines import Line2D

    from ..sweeps.refine import classified_points
    data = read_sweep(path, ("ybin", "hist", "pair_plotted", "band_values"))
    axis, x = _one_axis(data)
    grid = x.size
    # the grid and the points of its refinement rounds (docs/classification.md §9), in the order of classified_points
    names = np.array([n.split("(")[0] for n in classified_points(path)[2]], dtype=object)
    rounds = read_refinements(path, ("hist", "band_values"))
    x = np.concatenate([x] + [r["values"] for r in rounds])
    centres = data.arrays["ybin"]
    hist = np.concatenate([data.arrays["hist"]] + [r["arrays"]["hist"] for r in rounds])[:, feature, :]
    pairs = np.flatnonzero(data.arrays["pair_plotted"] == feature) if "pair_plotted" in data.arrays else []
    band = (np.concatenate([data.arrays["band_values"]] + [r["arrays"]["band_values"] for r in rounds])[:, pairs[0], :]
            if len(pairs) else None)
    observable = data.run["reductions"]["observable"]
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, 3.2), constrained_layout=True)
    fig = ax.figure
    handles = []
    for name in LABELS:
        rows = np.flatnonzero(names == name)
        if not rows.size:
            continue
        if name == "divergent":
            mark_columns(ax, x[:grid], names[:grid] == name, CLASS_COLOURS[name], "divergent")  # grid columns
            handles.append(Line2D([], [], ls="", marker="s", ms=5, color=CLASS_COLOURS[name], alpha=0.35,
                                  label="divergent"))
            continue
        values = None if band is None or name in ("fixed_point", "periodic") else band[rows]
        if values is None or not np.isfinite(values).any():    # no band points (or a cycle): visited values
            i, b = np.nonzero(hist[rows] > 0)
            xs, ys = x[rows][i], centres[b]
        else:
            keep = np.isfinite(values)
            xs, ys = np.broadcast_to(x[rows][:, None], values.shape)[keep], values[keep]
        ax.plot(xs, ys, ".", ms=0.8, color=CLASS_COLOURS[name], rasterized=True)
        handles.append(Line2D([], [], ls="", marker="o", ms=4, color=CLASS_COLOURS[name],
                              label=name.replace("_", " ")))
    found = _transitions(path)
    _mark_transitions(ax, found)
    if found:
        handles.append(Line2D([], [], color="0.4", lw=0.5, ls="--", label="transition"))
    ax.set_xlabel(AXIS_SYMBOLS.get(axis, axis))
    ax.set_ylabel(label(observable, feature))
    ax.legend(handles=handles, frameon=False, fontsize=7, ncol=4, loc="upper left")
    return fig


def bifurcation_figure(path, feature: int = 0):
    """The bifurcation diagram in both forms: orbit density (log colour scale) above the class-coloured form,
    sharing the parameter axis."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.0, 6.0), sharex=True, constrained_layout=True)
    plot_density_bifurcation(path, feature=feature, band=False, ax=top)
    class_bifurcation(path, feature=feature, ax=bottom)
    top.set_xlabel("")
    return fig


def lyapunov_vs_parameter(path, k: int = 3, ax=None):
    """λ_1..λ_k against the swept parameter, over background bands coloured by class (docs/model.md §4)."""
    names = _names(point_labels(path)[0])
    data = read_sweep(path, ("lyapunov",))
    axis, x = _one_axis(data)
    if "lyapunov" not in data.arrays:
        raise ConfigError(f"{path!r} has no Lyapunov exponents (run the sweep with lyapunov = true)")
    lam = data.arrays["lyapunov"][:, :k]
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, 2.8), constrained_layout=True)
    fig = ax.figure
    step = (x[-1] - x[0]) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
    for value, name in zip(x, names):
        ax.axvspan(value - step / 2, value + step / 2, color=CLASS_COLOURS[name], alpha=BACKGROUND_ALPHA, lw=0)
    _mark_transitions(ax, _transitions(path))
    finite = np.isfinite(lam)
    for j in range(lam.shape[1]):
        ax.plot(x[finite[:, j]], lam[finite[:, j], j], lw=0.8, label=rf"$\lambda_{j + 1}$")
    ax.axhline(0, color="0.3", lw=0.5)
    ax.set_xlabel(AXIS_SYMBOLS.get(axis, axis))
    ax.set_ylabel(r"$\lambda_i$")
    ax.set_xlim(x[0] - step / 2, x[-1] + step / 2)
    ax.legend(frameon=False, fontsize=7, ncol=k, loc="lower left")
    class_legend(fig, set(names), alpha=BACKGROUND_ALPHA)
    return fig


def finite_error_figure(path, ax=None):
    """Distance of the finite-N network to the aligned mean field against N, one line per value of the
    other grid axis, log–log with N^{-1/2} for reference (a sweep with a ``[finite]`` table, docs/model.md §6.3)."""
    data = read_sweep(path, ("finite_error", "finite_error_stderr"))
    axes = data.axes
    if "finite_error" not in data.arrays or axes[-1] != "n_bits" or len(axes) != 2:
        raise ConfigError(f"{path!r} is not a finite-N sweep over one parameter and n_bits")
    values, n_bits = data.coords[axes[0]], data.coords["n_bits"]
    error, stderr = data.arrays["finite_error"], data.arrays["finite_error_stderr"]
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.2, 3.4), constrained_layout=True)
    fig = ax.figure
    for value, err, se in zip(values, error, stderr):
        ax.errorbar(n_bits, err, yerr=np.nan_to_num(se), marker="o", ms=3, lw=0.8,
                    label=f"{AXIS_SYMBOLS.get(axes[0], axes[0])} = {value:g}")
    guide = error[np.isfinite(error)].max() * np.sqrt(n_bits[0] / n_bits) if np.isfinite(error).any() else None
    if guide is not None:
        ax.plot(n_bits, guide, ":", color="k", label=r"$\propto N^{-1/2}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("semantic bits $N$")
    ax.set_ylabel(r"$\langle|m^{o,se}_N - m^{o,se}_{MF}|\rangle$")
    ax.legend(frameon=False, fontsize=7)
    return fig


def class_map(path, ax=None):
    """Phase diagram of a 2-D sweep: the class of every grid point (first axis on x)."""
    codes = point_labels(path)[0]
    data = read_sweep(path)
    axes = data.axes
    if len(axes) != 2:
        raise ConfigError(f"the class map needs a 2-D sweep; the file has axes {axes}")
    x, y = data.coords[axes[0]], data.coords[axes[1]]
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.2, 3.8), constrained_layout=True)
    fig = ax.figure
    names = _names(codes)
    draw_class_grid(ax, names, x, y)
    ax.set_xlabel(AXIS_SYMBOLS.get(axes[0], axes[0]))
    ax.set_ylabel(AXIS_SYMBOLS.get(axes[1], axes[1]))
    class_legend(fig, set(names[codes != MISSING]))
    return fig


__all__ = ["class_bifurcation", "bifurcation_figure", "lyapunov_vs_parameter", "finite_error_figure", "class_map"]
