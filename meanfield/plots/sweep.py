"""Figures of a classified sweep: the class-coloured bifurcation diagram, the Lyapunov spectrum against the
swept parameter with class bands, the 2-D class map (phase diagram, docs/model.md §7.1), the 2-D map of the tori's
rotation numbers (docs/classification.md §4) and the finite-N error.
The density form of the bifurcation diagram is :func:`meanfield.plots.bifurcation.plot_density_bifurcation`."""
from __future__ import annotations

import numpy as np

from ..analysis import LABELS
from ..analysis.labels import CYCLES, MISSING, label_names
from ..errors import ConfigError
from .bifurcation import mark_columns, plot_density_bifurcation
from .data import one_axis, sweep_axes, sweep_dataset, sweep_run
from .style import (
    AXIS_SYMBOLS,
    BACKGROUND_ALPHA,
    CLASS_COLOURS,
    class_legend,
    draw_class_grid,
    follow_data,
    label,
    legend_outside,
    mark_bifurcations,
    mark_brackets,
    paper_style,
    plt,
)


def _mark_transitions(ax, ds, located=None) -> list:
    """Ticks at the label brackets the Dataset holds and lines at the ``located`` bifurcations (rows with
    ``kind`` and ``value``; brackets among them, ``value`` None, are skipped); their legend handles."""
    handles = []
    if "transition_low" in ds:
        handles += mark_brackets(ax, 0.5 * (ds["transition_low"].values + ds["transition_high"].values))
    points = [p for p in located or () if p.value is not None]
    return handles + mark_bifurcations(ax, points)


@paper_style
def class_bifurcation(sweep, feature: int = 0, ax=None, located=None):
    """Bifurcation diagram coloured by the automatic class (the reference's second form, docs/model.md §7.1):
    fixed points and periodic orbits as all their visited values (occupied histogram bins), other classes as
    their Poincaré section points (the band points: one point per crossing, so a chaotic orbit shows as its
    section, not its whole range), divergent points (no orbit) as columns, at the grid's points and those of its
    refinement rounds; one colour-blind-safe colour per class, every class present in the legend (above the
    axes, out of the data, which says what is drawn), the label brackets of the transitions
    (docs/classification.md §9) as ticks on the lower edge, the bifurcations ``located`` from multipliers
    (:func:`meanfield.sweeps.results.transitions.locate_transitions`, docs/bifurcations.md §6) as solid lines
    marked by kind, and a y range that follows the points. ``sweep``: a Dataset with labels
    (:func:`meanfield.sweep_results`) or the path of an analysed sweep file."""
    from matplotlib.lines import Line2D

    ds = sweep_dataset(sweep, ("hist", "ybin", "label", "period"))
    axis, x = one_axis(ds)
    n_features = ds["hist"].shape[1]
    if not 0 <= feature < n_features:
        raise ConfigError(f"feature = {feature} is not allowed: must be in 0..{n_features - 1}")
    grid = x.size
    # the grid and the points of its refinement rounds (docs/classification.md §9)
    refined = "refined_value" in ds
    codes = np.concatenate([ds["label"].values] + ([ds["refined_label"].values] if refined else []))
    names = np.array(label_names(codes), dtype=object)
    x = np.concatenate([x] + ([ds["refined_value"].values] if refined else []))
    centres = ds["ybin"].values
    hist = np.concatenate([ds["hist"].values] + ([ds["refined_hist"].values] if refined else []))[:, feature, :]
    pairs = np.flatnonzero(ds["pair_plotted"].values == feature) if "pair_plotted" in ds else []
    band = (np.concatenate([ds["band_values"].values] + ([ds["refined_band_values"].values] if refined else []))
            [:, pairs[0], :] if len(pairs) else None)
    observable = sweep_run(ds)["reductions"]["observable"]
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, 3.0), layout="constrained")
    fig = ax.figure
    handles = []
    low, high = np.inf, -np.inf
    for name in LABELS:
        rows = np.flatnonzero(names == name)
        if not rows.size:
            continue
        if name == "divergent":
            mark_columns(ax, x[:grid], names[:grid] == name, CLASS_COLOURS[name], "divergent")  # grid columns
            handles.append(Line2D([], [], ls="", marker="s", ms=5, color=CLASS_COLOURS[name], alpha=0.35,
                                  label="divergent"))
            continue
        values = None if band is None or name in CYCLES else band[rows]
        if values is None or not np.isfinite(values).any():    # no band points (or a cycle): visited values
            i, b = np.nonzero(hist[rows] > 0)
            xs, ys = x[rows][i], centres[b]
        else:
            keep = np.isfinite(values)
            xs, ys = np.broadcast_to(x[rows][:, None], values.shape)[keep], values[keep]
        if ys.size:
            low, high = min(low, ys.min()), max(high, ys.max())
        ax.plot(xs, ys, ".", ms=0.8, color=CLASS_COLOURS[name], rasterized=True)
        handles.append(Line2D([], [], ls="", marker="o", ms=4, color=CLASS_COLOURS[name],
                              label=name.replace("_", " ")))
    handles += _mark_transitions(ax, ds, located)
    follow_data(ax, low, high)
    ax.set_xlabel(AXIS_SYMBOLS.get(axis, axis))
    ax.set_ylabel(label(observable, feature))
    columns = len(handles) if len(handles) <= 6 else -(-len(handles) // 3)      # up to 6 in a row, else 3 rows
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=columns,
              frameon=False, borderaxespad=0.2, handletextpad=0.1, columnspacing=1.0, alignment="left",
              title="automatic class: cycles as their visited values, other orbits as Poincaré section points",
              title_fontsize=7)
    return fig


@paper_style
def bifurcation_figure(sweep, feature: int = 0):
    """The bifurcation diagram in both forms, orbit density (log colour scale) above the class-coloured form,
    and λ_1..λ_3 with class bands below when the sweep has exponents; the panels share the parameter axis
    (the figure at the top of the README, ``meanfield sweep RUN.toml --plot`` and ``meanfield plot
    bifurcation``). ``sweep``: a Dataset with labels (:func:`meanfield.sweep_results`) or the path of an
    analysed sweep file."""
    ds = sweep_dataset(sweep, ("label",))
    with_exponents = "lyapunov" in ds
    heights = [3, 3, 2] if with_exponents else [3, 3]
    fig, axes = plt.subplots(len(heights), 1, figsize=(7.0, 2.6 * len(heights)), sharex=True, layout="constrained",
                             gridspec_kw={"height_ratios": heights})
    plot_density_bifurcation(ds, feature=feature, band=False, ax=axes[0])
    class_bifurcation(ds, feature=feature, ax=axes[1])
    if with_exponents:
        lyapunov_vs_parameter(ds, ax=axes[2])
    for ax in axes[:-1]:
        ax.set_xlabel("")
    fig.align_ylabels(axes)
    return fig


#: Line styles of λ_1, λ_2, ...: exponents that coincide (e.g. a complex pair at a fixed point) stay visible.
EXPONENT_STYLES = (dict(color="tab:blue", ls="-", lw=1.6), dict(color="tab:orange", ls=(0, (4, 2)), lw=1.1),
                   dict(color="tab:purple", ls=(0, (1, 1.5)), lw=1.3), dict(color="tab:brown", ls="-.", lw=1.0))


@paper_style
def lyapunov_vs_parameter(sweep, k: int = 3, ax=None):
    """λ_1..λ_k (per step) against the swept parameter with ± one standard error as bands, over background
    bands coloured by class (docs/model.md §4). Coinciding exponents stay visible (distinct colours and dash
    patterns); the legends sit outside the data. ``sweep``: a Dataset with labels
    (:func:`meanfield.sweep_results`) or the path of an analysed sweep file."""
    from ..model.spec import require_int
    k = require_int("k", k, 1, len(EXPONENT_STYLES) * 3)
    ds = sweep_dataset(sweep, ("label",))
    names = label_names(ds["label"].values)
    axis, x = one_axis(ds)
    if "lyapunov" not in ds:
        raise ConfigError(f"{ds.encoding.get('source', 'the sweep')!r} has no Lyapunov exponents (run the sweep "
                          "with lyapunov = true)")
    lam = ds["lyapunov"].values[:, :k]
    err = ds["lyapunov_stderr"].values[:, :k] if "lyapunov_stderr" in ds else np.zeros_like(lam)
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, 2.6), layout="constrained")
    fig = ax.figure
    step = (x[-1] - x[0]) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
    for value, name in zip(x, names):
        ax.axvspan(value - step / 2, value + step / 2, color=CLASS_COLOURS[name], alpha=BACKGROUND_ALPHA, lw=0)
    finite = np.isfinite(lam)
    for j in range(lam.shape[1]):
        style = EXPONENT_STYLES[j % len(EXPONENT_STYLES)]
        keep = finite[:, j]
        band = np.nan_to_num(err[keep, j])
        ax.fill_between(x[keep], lam[keep, j] - band, lam[keep, j] + band, color=style["color"], alpha=0.3, lw=0)
        ax.plot(x[keep], lam[keep, j], label=rf"$\lambda_{j + 1}$", **style)
    ax.axhline(0, color="0.3", lw=0.5)
    if finite.any():
        follow_data(ax, lam[finite].min(), lam[finite].max())
    ax.set_xlabel(AXIS_SYMBOLS.get(axis, axis))
    ax.set_ylabel(r"$\lambda_i$ (per step)")
    ax.set_xlim(x[0] - step / 2, x[-1] + step / 2)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles, [f"{text} ± 1 s.e." for text in labels], loc="lower left", bbox_to_anchor=(0.0, 1.0),
              ncol=k, frameon=False, handlelength=3.0, borderaxespad=0.2)
    class_legend(fig, set(names), alpha=BACKGROUND_ALPHA)
    return fig


@paper_style
def finite_error_figure(sweep, ax=None):
    """Distance of the finite-N network to the aligned mean field against N, one line per value of the
    other grid axis, log–log with N^{-1/2} for reference (a sweep with a ``[finite]`` table, docs/model.md §6.3).
    ``sweep``: a Dataset or the path of a sweep file."""
    ds = sweep_dataset(sweep)
    axes = sweep_axes(ds)
    if "finite_error" not in ds or axes[-1] != "n_bits" or len(axes) != 2:
        raise ConfigError(f"{ds.encoding.get('source', 'the sweep')!r} is not a finite-N sweep over one parameter "
                          "and n_bits")
    values, n_bits = ds[axes[0]].values, ds["n_bits"].values
    error, stderr = ds["finite_error"].values, ds["finite_error_stderr"].values
    if ax is None:
        fig, ax = plt.subplots(figsize=(5.0, 3.0), layout="constrained")
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
    run = sweep_run(ds)
    aligned = run['finite']['aligned_steps']
    ax.set_ylabel(r"$\langle|m^{o,se}_N - m^{o,se}_{MF}|\rangle$" + f", first {aligned} steps")
    ax.set_title(f"{run['name']}: {run['finite']['replicas']} replicas per point", loc="left")
    legend_outside(ax)
    return fig


def _map_axes(ds, what: str, ax):
    """The grid axes of a 2-D sweep (first on x) with their coordinates, on ``ax`` (a new figure's when None),
    labelled; ConfigError for another number of axes."""
    axes = sweep_axes(ds)
    if len(axes) != 2:
        raise ConfigError(f"the {what} needs a 2-D sweep; the file has axes {axes}")
    if ax is None:
        _, ax = plt.subplots(figsize=(4.2, 3.8), layout="constrained")
    ax.set_xlabel(AXIS_SYMBOLS.get(axes[0], axes[0]))
    ax.set_ylabel(AXIS_SYMBOLS.get(axes[1], axes[1]))
    return ax, ds[axes[0]].values, ds[axes[1]].values


@paper_style
def class_map(sweep, ax=None):
    """Phase diagram of a 2-D sweep: the class of every grid point (first axis on x). ``sweep``: a Dataset with
    labels (:func:`meanfield.sweep_results`) or the path of an analysed sweep file."""
    ds = sweep_dataset(sweep, ("label",))
    codes = ds["label"].values
    ax, x, y = _map_axes(ds, "class map", ax)
    names = label_names(codes)
    draw_class_grid(ax, names, x, y)
    class_legend(ax.figure, set(names[codes != MISSING]))
    return ax.figure


@paper_style
def rotation_map(sweep, ax=None):
    """The rotation number of every torus of a 2-D sweep, and p/k of every cycle locked on one (the Dataset's
    ``rotation``, turns per forcing period, docs/classification.md §4), in colour over the grid (first axis on x),
    with a colour bar: an Arnold tongue is a band of one colour; the other points (a rest state, another cycle,
    chaos) are left pale grey. ``sweep``: a Dataset of
    :func:`meanfield.sweep_results` (which adds ``rotation``)."""
    ds = sweep_dataset(sweep, ("rotation",))
    ax, x, y = _map_axes(ds, "rotation map", ax)
    mesh = ax.pcolormesh(x, y, ds["rotation"].values.T, shading="nearest", cmap="viridis", zorder=0)
    ax.set_facecolor("0.88")
    ax.figure.colorbar(mesh, ax=ax, label="rotation number (turns per forcing period)")
    return ax.figure


__all__ = ["class_bifurcation", "bifurcation_figure", "lyapunov_vs_parameter", "finite_error_figure", "class_map",
           "rotation_map"]
