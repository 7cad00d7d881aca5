"""The look shared by every figure (matplotlib, Agg backend): readable at paper size, axis labels with the paper's
symbols, one colour per attractor class."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

#: Axis labels of the observables (docs/model.md §3.2).
SYMBOLS = {"att": "a", "mo": "m^o", "mo_se": "m^{o,se}", "mv": "m^v", "mq": "m^q", "mk": "m^k"}
#: Symbols of sweepable parameters on axes.
AXIS_SYMBOLS = {"beta_o": r"$\beta_o$", "beta_att": r"$\beta_{att}$", "gamma": r"$\gamma$",
                "epsilon": r"$\epsilon$", "control.kp": "$K_P$", "control.ki": "$K_I$", "control.kd": "$K_D$",
                "control.rho": r"$\rho$", "control.kappa": r"$\kappa$", "control.i_max": "$I_{max}$"}


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
    fig.legend(handles=handles, loc="outside lower center", ncol=max(len(handles), 1), frameon=False, fontsize=7)
