"""The density bifurcation diagram of a 1-D sweep (spec §4.2, simple form): for every value of the swept
parameter, the orbit histogram of one feature over the sweep's fixed y-bins, shaded by log density, with the
Poincaré band points of spec §4.2 on top. The class-coloured version of the reference (periodic /
quasi-periodic / chaotic colours) belongs to the analysis layer."""
from __future__ import annotations

import json

import h5py
import matplotlib
import numpy as np

from .errors import ConfigError
from .plots import label, plt


def plot_density_bifurcation(path, feature: int = 0, band: bool = True, ax=None):
    """Figure of ``hist[:, feature, :]`` of the sweep file ``path`` against its single grid axis.

    Parameters
    ----------
    path : a sweep file written by :func:`meanfield.sweep`.
    feature : which feature of the reduced observable to plot (0-based; the paper's panels use 0).
    band : overlay the stored Poincaré band points of the pairs whose plotted feature is ``feature``.
    ax : a matplotlib Axes to draw into (default: a new figure).

    Returns the matplotlib Figure. Points not yet computed stay white.
    """
    with h5py.File(path, "r") as f:
        axes = json.loads(f.attrs["axes"])
        if len(axes) != 1:
            raise ConfigError(f"plot_density_bifurcation: the sweep has axes {axes}; it needs a 1-D sweep")
        run = json.loads(f.attrs["run_json"])
        x = f[axes[0]][...]
        n_features = f["hist"].shape[1]
        if not 0 <= feature < n_features:
            raise ConfigError(f"feature = {feature} is not allowed: must be in 0..{n_features - 1}")
        hist = f["hist"][:, feature, :].astype(np.float64)
        done = f["done"][...].astype(bool)
        points = []
        if band and "band_values" in f:
            for n in np.flatnonzero(f["pair_plotted"][...] == feature):
                values = f["band_values"][:, n, :]
                xs = np.broadcast_to(x[:, None], values.shape)
                keep = np.isfinite(values) & done[:, None]
                points.append((xs[keep], values[keep]))
    lo, hi = run["reductions"]["y_range"]
    totals = hist.sum(axis=1, keepdims=True)
    density = np.where(hist > 0, np.log1p(hist) / np.log1p(np.maximum(totals, 1)), np.nan)   # empty: white
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, 3.2), constrained_layout=True)
    else:
        fig = ax.figure
    step = (x[-1] - x[0]) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
    ax.imshow(density.T, origin="lower", aspect="auto", cmap=matplotlib.colormaps["inferno_r"].with_extremes(bad="white"), interpolation="nearest",
              extent=[x[0] - step / 2, x[-1] + step / 2, lo, hi], vmin=0, vmax=1)
    for xs, ys in points:
        ax.plot(xs, ys, ",", color="tab:cyan", alpha=0.6, rasterized=True)
    name = run["reductions"]["observable"]
    symbol = {"beta_o": r"$\beta_o$", "beta_att": r"$\beta_{att}$", "gamma": r"$\gamma$", "epsilon": r"$\epsilon$"}
    ax.set_xlabel(symbol.get(axes[0], axes[0]))
    ax.set_ylabel(label(name, feature))
    ax.set_title(f"{run['name']}: {int(done.sum())}/{len(done)} points, {run['steps'] - run['transient']} "
                 "recorded steps each", fontsize=9)
    return fig


__all__ = ["plot_density_bifurcation"]
