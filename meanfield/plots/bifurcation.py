"""The density bifurcation diagram of a 1-D sweep (docs/model.md §7.1, simple form): for every value of the swept
parameter, the orbit histogram of one feature over the sweep's fixed y-bins, shaded by the fraction of recorded
steps in each bin (log scale, with a colour bar), with the Poincaré band points on top. The class-coloured form
is :func:`meanfield.plots.sweep.class_bifurcation`."""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.colors import LogNorm

from ..errors import ConfigError
from .data import one_axis, sweep_caption, sweep_dataset, sweep_run
from .style import AXIS_SYMBOLS, follow_data, label, paper_style, plt


def occupied_range(hist: np.ndarray, edges: np.ndarray) -> tuple:
    """(low, high) edges of the bins any point visited (``hist`` (..., bins)); (nan, nan) when none."""
    used = np.flatnonzero(hist.reshape(-1, hist.shape[-1]).any(axis=0))
    return (edges[used[0]], edges[used[-1] + 1]) if used.size else (np.nan, np.nan)


@paper_style
def plot_density_bifurcation(sweep, feature: int = 0, band: bool = True, ax=None, colorbar: bool = True):
    """Figure of ``hist[:, feature, :]`` of a 1-D sweep against its grid axis.

    Parameters
    ----------
    sweep : the sweep as a Dataset (:func:`meanfield.open_run`, :func:`meanfield.sweep_results`) or the path of a
        sweep file written by :func:`meanfield.sweep`.
    feature : which feature of the reduced observable to plot (0-based; the paper's panels use 0).
    band : overlay the stored Poincaré band points of the pairs whose plotted feature is ``feature``.
    ax : a matplotlib Axes to draw into (default: a new figure).
    colorbar : draw the colour bar (fraction of the recorded steps per bin) next to ``ax``.

    Returns the matplotlib Figure. Points not yet computed stay white; divergent points (their PID loop was
    stopped, docs/model.md §5.3, so they have no orbit) are red columns; the y range is that of the visited bins.
    """
    ds = sweep_dataset(sweep, ("hist", "done"))
    axis, x = one_axis(ds)
    run = sweep_run(ds)
    n_features = ds["hist"].shape[1]
    if not 0 <= feature < n_features:
        raise ConfigError(f"feature = {feature} is not allowed: must be in 0..{n_features - 1}")
    hist = ds["hist"].values[:, feature, :].astype(np.float64)
    done = ds["done"].values.astype(bool)
    points = []
    if band and "band_values" in ds:
        for n in np.flatnonzero(ds["pair_plotted"].values == feature):
            values = ds["band_values"].values[:, n, :]
            xs = np.broadcast_to(x[:, None], values.shape)
            keep = np.isfinite(values) & done[:, None]
            points.append((xs[keep], values[keep]))
    lo, hi = run["reductions"]["y_range"]
    edges = np.linspace(lo, hi, hist.shape[1] + 1)
    totals = hist.sum(axis=1, keepdims=True)
    fraction = np.where(hist > 0, hist / np.maximum(totals, 1), np.nan)          # empty bins: white
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, 3.0), layout="constrained")
    else:
        fig = ax.figure
    step = (x[-1] - x[0]) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
    recorded = max(float(totals.max()), 2.0)
    image = ax.imshow(fraction.T, origin="lower", aspect="auto", interpolation="nearest",
                      cmap=matplotlib.colormaps["inferno_r"].with_extremes(bad="white"),
                      norm=LogNorm(vmin=1.0 / recorded, vmax=1.0), extent=[x[0] - step / 2, x[-1] + step / 2, lo, hi])
    for xs, ys in points:
        ax.plot(xs, ys, ",", color="tab:cyan", alpha=0.6, rasterized=True)
    if "diverged_at" in ds:
        mark_columns(ax, x, done & (ds["diverged_at"].values >= 0))
    follow_data(ax, *occupied_range(hist[done], edges))
    if colorbar:
        bar = fig.colorbar(image, ax=ax, pad=0.01, fraction=0.04, aspect=25)
        bar.set_label("fraction of steps in bin")
    ax.set_xlabel(AXIS_SYMBOLS.get(axis, axis))
    ax.set_ylabel(label(run["reductions"]["observable"], feature))
    ax.set_title(f"{sweep_caption(ds)}, {int(done.sum())}/{len(done)} points", loc="left")
    return fig


def mark_columns(ax, x, mask, colour: str = "tab:red", name: str = "divergent") -> None:
    """Shade the full height of the columns of the 1-D grid ``x`` where ``mask`` holds (points without an
    orbit to draw, such as divergent ones), labelled ``name`` once for a legend."""
    step = (x[-1] - x[0]) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
    for n, value in enumerate(x[mask]):
        ax.axvspan(value - step / 2, value + step / 2, color=colour, alpha=0.35, lw=0, label=None if n else name)


__all__ = ["plot_density_bifurcation", "mark_columns", "occupied_range"]
