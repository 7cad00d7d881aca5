"""The look shared by every figure (matplotlib, Agg backend): readable at paper size (7 in wide, 7-8 pt text),
axis labels with the paper's symbols, one colour per attractor class, density panels with a labelled colour
scale, legends outside the data and y ranges that follow the data."""
from __future__ import annotations

import functools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..analysis.labels import LABELS, MISSING_NAME  # noqa: E402

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


#: Symbols of the observables (docs/model.md §3.2, "Symbols on the figures").
SYMBOLS = {"att": "a", "mo": "m^o", "mo_se": "m^{o,se}", "mv": "m^v", "mq": "m^q", "mk": "m^k"}
#: Their names, said next to the symbol on every axis (docs/model.md §3.2).
NAMES = {"att": "attention output", "mo": "output mean field", "mo_se": "semantic output mean field",
         "mv": "value mean field", "mq": "query mean field", "mk": "key mean field"}
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


def label(observable: str, feature: int, wrap: bool = False) -> str:
    """The axis label of one feature of an observable, the same on every figure: its symbol and name, such as
    ``$m^{o,se}_1$ (semantic output mean field)`` (features numbered from 1 as in the paper, docs/model.md §3.2);
    ``wrap`` puts the name on a second line (narrow panels)."""
    return f"${SYMBOLS[observable]}_{feature + 1}$" + ("\n" if wrap else " ") + f"({NAMES[observable]})"


#: One colour per label of the vocabulary (:data:`meanfield.analysis.LABELS`, in code order, then "missing"),
#: distinguishable with every common colour-vision deficiency (the palette of Okabe & Ito, "Color universal
#: design", 2008); backgrounds use them with transparency (docs/classification.md).
CLASS_COLOURS = dict(zip((*LABELS, MISSING_NAME), ("#000000", "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#999999",
                                                   "#D55E00", "white"), strict=True))
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


#: The colour of the unsettled starts of a census or basin map (those that settled on no attractor): a grey, the
#: grey the classifier's ``"unresolved"`` class is drawn in (:data:`CLASS_COLOURS`) — in both, grey is "no
#: attractor named" — but its own constant: an unsettled start is no attractor and has no class.
UNSETTLED_COLOUR = "#999999"
#: Colours of attractor ids, most important first: the nine non-grey colours of matplotlib's "tab10" and then their
#: light partners from "tab20" — no grey, so none can be taken for the grey of the unsettled share.
ATTRACTOR_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22",
                     "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
                     "#dbdb8d", "#9edae5")
#: The one colour of the attractors beyond the named ones (a pale sand, neither grey nor in the palette).
OTHERS_COLOUR = "#e5d8bd"
#: How many attractors get their own colour and legend entry by default.
NAMED_ATTRACTORS = 12


def attractor_colours(ids, named: int = NAMED_ATTRACTORS) -> dict:
    """Colour of every attractor id of ``ids`` (listed most important first): the first ``named`` (at most
    ``len(ATTRACTOR_PALETTE)``) get the distinct colours of :data:`ATTRACTOR_PALETTE`, the rest
    :data:`OTHERS_COLOUR`; none is the grey of the unsettled starts (:data:`UNSETTLED_COLOUR`)."""
    named = min(named, len(ATTRACTOR_PALETTE))
    return {i: ATTRACTOR_PALETTE[n] if n < named else OTHERS_COLOUR for n, i in enumerate(ids)}


def attractor_names(periods: dict, labels: dict | None = None) -> dict:
    """Legend names of attractor ids from their periods {id: period} (0 aperiodic): ``"p24 #2"`` for the second
    id of period 24; an aperiodic id by its class in ``labels`` {id: label} (``"chaotic #1"``,
    ``"quasi-periodic #1"``), ``"aperiodic #1"`` where none is given; numbered in id order per name."""
    names, seen = {}, {}
    for i in sorted(periods):
        kind = f"p{periods[i]}" if periods[i] > 0 else (labels or {}).get(i, "aperiodic").replace("_", "-")
        seen[kind] = seen.get(kind, 0) + 1
        names[i] = f"{kind} #{seen[kind]}"
    return names


def attractor_handles(names: dict, colours: dict, marker: str | None = None) -> list:
    """Legend handles, one per named attractor (in the order of ``colours``), then one "others" entry when any
    id has :data:`OTHERS_COLOUR`; patches, or markers of style ``marker`` (e.g. ``"o"``) when given."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    def handle(colour, text):
        if marker is None:
            return Patch(color=colour, label=text)
        return Line2D([], [], ls="none", marker=marker, markersize=5, color=colour, label=text)
    handles = [handle(c, names[i]) for i, c in colours.items() if c != OTHERS_COLOUR]
    others = sum(c == OTHERS_COLOUR for c in colours.values())
    if others:
        handles.append(handle(OTHERS_COLOUR, f"others ({others})"))
    return handles


#: Marks of bifurcations located from multipliers (docs/bifurcations.md): (short name, marker, name); drawn as
#: solid lines with the marker, never like the ticks of label brackets (:func:`mark_brackets`).
BIFURCATION_MARKS = {"fold": ("F", "v", "fold"), "period_doubling": ("PD", "s", "period doubling"),
                     "neimark_sacker": ("NS", "D", "Neimark–Sacker")}
#: Colour of located bifurcations.
LOCATED_COLOUR = "#D55E00"


def mark_bifurcations(ax, points, marker_row: float = 1.0) -> list:
    """A solid line at every located bifurcation of ``points`` (objects with ``kind`` and ``value``; kinds of
    :data:`BIFURCATION_MARKS`) with its kind's marker on the top edge of ``ax`` (at ``marker_row`` in axes
    units); legend handles of the kinds drawn."""
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory
    edge = blended_transform_factory(ax.transData, ax.transAxes)
    kinds = []
    for point in points:
        marker = BIFURCATION_MARKS[point.kind][1]
        ax.axvline(point.value, color=LOCATED_COLOUR, lw=0.6, ls="-", alpha=0.8, zorder=3)
        ax.plot([point.value], [marker_row], marker=marker, ms=4, color=LOCATED_COLOUR, transform=edge,
                clip_on=False, zorder=4)
        kinds += [] if point.kind in kinds else [point.kind]
    return [Line2D([], [], color=LOCATED_COLOUR, lw=0.6, marker=BIFURCATION_MARKS[k][1], ms=4,
                   label=f"{BIFURCATION_MARKS[k][0]}: {BIFURCATION_MARKS[k][2]} (multipliers)") for k in kinds]


def mark_brackets(ax, centres) -> list:
    """A thin tick at the bottom edge of ``ax`` at every label bracket's centre (where the automatic class
    changes, docs/classification.md §9): ticks, not lines across the data, so that many close ones stay apart;
    the legend handle, or none when there are no brackets."""
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory
    centres = np.asarray(centres, dtype=float)
    if not centres.size:
        return []
    edge = blended_transform_factory(ax.transData, ax.transAxes)
    ax.vlines(centres, 0.0, 0.05, transform=edge, colors="0.25", lw=0.5, zorder=3)
    return [Line2D([], [], ls="none", marker="|", ms=6, mew=0.8, color="0.25", label="class change (label bracket)")]
