"""The look shared by every figure (matplotlib, Agg backend): readable at paper size (7 in wide, 7-8 pt text),
axis labels with the paper's symbols, one colour per attractor class, density panels with a labelled colour
scale, legends outside the data and y ranges that follow the data."""
from __future__ import annotations

import functools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

#: Text sizes and line widths of every figure, applied while it is drawn (the user's own rcParams stay as they are).
PAPER = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7,
         "legend.fontsize": 7, "figure.titlesize": 9, "lines.linewidth": 1.0, "axes.linewidth": 0.6,
         "savefig.dpi": 200}


def paper_style(function):
    """Draw the figure of ``function`` with :data:`PAPER`."""
    @functools.wraps(function)
    def draw(*args, **kwargs):
        with plt.rc_context(PAPER):
            return function(*args, **kwargs)
    return draw


def follow_data(ax, low: float, high: float, margin: float = 0.04) -> None:
    """Set the y range of ``ax`` to the data's [low, high] plus a margin (a constant series gets ±0.05)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return
    pad = margin * (high - low) if high > low else 0.05
    ax.set_ylim(low - pad, high + pad)


def legend_outside(ax, **kwargs):
    """The legend of ``ax`` to the right of its axes, out of the data."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False, **kwargs)


#: Axis labels of the observables (docs/model.md §3.2).
SYMBOLS = {"att": "a", "mo": "m^o", "mo_se": "m^{o,se}", "mv": "m^v", "mq": "m^q", "mk": "m^k"}
#: Symbols of sweepable parameters on axes.
AXIS_SYMBOLS = {"beta_o": r"$\beta_o$", "beta_att": r"$\beta_{att}$", "gamma": r"$\gamma$",
                "epsilon": r"$\epsilon$", "control.kp": "$K_P$", "control.ki": "$K_I$", "control.kd": "$K_D$",
                "control.rho": r"$\rho$", "control.kappa": r"$\kappa$", "control.i_max": "$I_{max}$"}


def check_figure_path(path) -> str:
    """Refuse, before anything is computed, a figure path whose extension matplotlib cannot write."""
    import os

    from ..errors import ConfigError
    formats = matplotlib.figure.Figure().canvas.get_supported_filetypes()     # no pyplot figure is opened
    extension = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    if extension not in formats:
        raise ConfigError(f"figure {os.fspath(path)!r} is not allowed: the extension must be one of "
                          f"{sorted('.' + f for f in formats)}")
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.exists(directory) and not os.access(directory, os.W_OK):
        raise ConfigError(f"figure {os.fspath(path)!r}: directory {directory!r} is not writable")
    return os.fspath(path)


def label(observable: str, feature: int) -> str:
    """Mathtext label such as ``$m^{o,se}_1$`` (features numbered from 1 as in the paper)."""
    return f"${SYMBOLS[observable]}_{feature + 1}$"


#: One colour per attractor class, distinguishable with every common colour-vision deficiency (the palette of
#: Okabe & Ito, "Color universal design", 2008); backgrounds use them with transparency (docs/classification.md).
CLASS_COLOURS = {"fixed_point": "#000000", "periodic": "#0072B2", "quasi_periodic": "#E69F00",
                 "chaotic": "#009E73", "hyperchaotic": "#CC79A7", "unresolved": "#999999",
                 "divergent": "#D55E00", "missing": "white"}
#: Transparency of class colours used as backgrounds.
BACKGROUND_ALPHA = 0.35


def draw_class_grid(ax, labels, x, y):
    """Class of every point of a 2-D grid (labels[i, j] at x[i], y[j]) as coloured cells."""
    from matplotlib.colors import ListedColormap
    names = list(CLASS_COLOURS)
    codes = np.vectorize(names.index)(labels).astype(float)
    dx = (x[-1] - x[0]) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
    dy = (y[-1] - y[0]) / max(len(y) - 1, 1) if len(y) > 1 else 1.0
    ax.imshow(codes.T, origin="lower", aspect="auto", cmap=ListedColormap([CLASS_COLOURS[n] for n in names]),
              vmin=-0.5, vmax=len(names) - 0.5, interpolation="nearest",
              extent=[x[0] - dx / 2, x[-1] + dx / 2, y[0] - dy / 2, y[-1] + dy / 2])


def class_legend(fig, labels_present, order=None, alpha: float = 1.0) -> None:
    """A legend of the class colours present, below the axes (``alpha`` as the colours were drawn)."""
    from matplotlib.patches import Patch
    order = order or list(CLASS_COLOURS)
    handles = [Patch(color=CLASS_COLOURS[c], alpha=alpha, label=c.replace("_", " ")) for c in order
               if c in labels_present and c != "missing"]
    width = fig.get_size_inches()[0] if hasattr(fig, "get_size_inches") else fig.figure.get_size_inches()[0]
    columns = max(1, min(len(handles), int(width / 1.25)))        # an entry takes about 1.2 in at 7 pt
    fig.legend(handles=handles, loc="outside lower center", ncol=columns, frameon=False, fontsize=7)
