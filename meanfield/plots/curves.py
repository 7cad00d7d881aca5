"""The two-parameter bifurcation diagram (docs/bifurcations.md §10): located curves over a phase diagram.

Each :class:`~meanfield.analysis.curves.Curve` (what :func:`meanfield.bifurcation_curve` returns) is drawn in the plane
of its two parameters, solid where supercritical (and along fold curves, which have no criticality), dashed where
subcritical (:attr:`~meanfield.analysis.curves.Curve.criticality`); its codim-2 points are marked and named in the
legend. A 2-D sweep's classes (:func:`~meanfield.plots.sweep.class_map`) are the pale background, or its tori's
rotation numbers (:func:`~meanfield.plots.sweep.rotation_map`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from .branches import _pieces
from .style import AXIS_SYMBOLS, BACKGROUND_ALPHA, paper_style, plt
from .sweep import class_map, rotation_map

#: Codim-2 points: kind → (short name, marker).
CODIM_TWO_MARKS = {"fold_flip": ("LPPD", "v"), "generalised_period_doubling": ("GPD", "s"), "chenciner": ("CH", "*"),
                   "resonance_1:1": ("R1", "o"), "resonance_1:2": ("R2", "^"), "resonance_1:3": ("R3", "<"),
                   "resonance_1:4": ("R4", "D")}


@paper_style
def curves_figure(curves: list, sweep=None, *, title: str | None = None, background: str = "classes"):
    """The figure: ``curves`` [(name, Curve, colour)] (a name None: no legend entry of its own) over ``sweep``
    (a 2-D sweep's Dataset with labels, or None), whose ``background`` is its "classes" or its tori's "rotation"
    numbers. The axes are the sweep's (first on x), or the first curve's parameters (second on x)."""
    if background not in ("classes", "rotation"):
        raise ConfigError(f"background = {background!r} is not allowed: must be 'classes' or 'rotation'")
    fig, ax = plt.subplots(figsize=(5.0, 4.4), layout="constrained")
    if sweep is not None and background == "rotation":
        rotation_map(sweep, ax=ax)
    elif sweep is not None:
        class_map(sweep, ax=ax)
        ax.images[-1].set_alpha(BACKGROUND_ALPHA)
        for handle in fig.legends[-1].legend_handles:
            handle.set_alpha(BACKGROUND_ALPHA)
    if sweep is not None:
        x_name, y_name = (ax.get_xlabel(), ax.get_ylabel())
        names = {AXIS_SYMBOLS.get(p, p): p for _, curve, _ in curves for p in curve.parameters}
        x_name, y_name = names.get(x_name, x_name), names.get(y_name, y_name)
    else:
        y_name, x_name = curves[0][1].parameters
    handles = []
    for name, curve, colour in curves:
        cx, cy = list(curve.parameters).index(x_name), list(curve.parameters).index(y_name)
        subcritical = np.array([c == "subcritical" for c in curve.criticality])
        for a, b, dashed in _pieces(subcritical):
            ax.plot(curve.values[a:b, cx], curve.values[a:b, cy], "--" if dashed else "-", color=colour, lw=1.0)
        if name:                                  # a curve without a name shares the one before it's entry
            handles.append(ax.plot([], [], "-", color=colour, lw=1.0, label=name)[0])
        for point in curve.special:
            short, marker = CODIM_TWO_MARKS[point.kind]
            ax.plot(point.values[cx], point.values[cy], marker, color="black", ms=5, zorder=5)
            handles.append(ax.plot([], [], marker, color="black", ms=5, ls="none",
                                   label=f"{short} ({point.values[cx]:.4f}, {point.values[cy]:.4f})")[0])
    if any("subcritical" in curve.criticality for _, curve, _ in curves):
        handles.append(ax.plot([], [], "--", color="0.3", lw=1.0, label="subcritical")[0])
    ax.set_xlabel(AXIS_SYMBOLS.get(x_name, x_name))
    ax.set_ylabel(AXIS_SYMBOLS.get(y_name, y_name))
    ax.legend(handles=handles, loc="best", fontsize=6, frameon=True, framealpha=0.8)
    if title:
        ax.set_title(title, loc="left")
    return fig


@dataclass(frozen=True)
class _Special:
    kind: str
    values: np.ndarray


@dataclass(frozen=True)
class _StoredCurve:
    """What :func:`curves_figure` reads of a curve, from a curve study's Dataset."""

    parameters: tuple
    values: np.ndarray
    criticality: list
    special: list


#: Colours of a curve study's curves, by kind (a tongue's sides: the tongue colour).
KIND_COLOURS = {"neimark_sacker": "#CC0000", "period_doubling": "#2CA02C", "fold": "#7F3FBF", "tongue": "#1F4E9C"}
#: Names of the kinds in the legend.
KIND_NAMES = {"neimark_sacker": "Neimark–Sacker", "period_doubling": "period doubling", "fold": "fold"}


def study_figure(dataset, sweep=None, title: str | None = None):
    """The figure of a curve study's Dataset (:func:`meanfield.sweeps.store.curves.curves_dataset`): every curve,
    a tongue's two sides in one colour under one legend entry, the codim-2 points marked (a tongue's tip is the
    resonance point its Neimark–Sacker curve marks), over ``sweep``'s tori's rotation numbers when given;
    ``title`` (default the study's name)."""
    parameters = tuple(dataset.parameter.values.tolist())
    entries = []
    for i, name in enumerate(dataset.curve.values.tolist()):
        k = int(dataset.length.values[i])
        special = [_Special(kind, values) for curve, kind, values in
                   zip(dataset.special_curve.values, dataset.special_kind.values, dataset.special_values.values)
                   if curve == name and kind in CODIM_TWO_MARKS]
        curve = _StoredCurve(parameters, dataset["values"].values[i, :k],
                             [c or None for c in dataset.criticality.values[i, :k]], special)
        kind, source = str(dataset.kind.values[i]), str(dataset.source.values[i])
        if source == "tongue":
            tongue = name.rsplit(".", 1)[0]
            label = None if name.endswith(".upper") else f"{tongue} (tongue)"
            entries.append((label, curve, KIND_COLOURS["tongue"]))
        else:
            entries.append((f"{name} ({KIND_NAMES[kind]})", curve, KIND_COLOURS[kind]))
    return curves_figure(entries, sweep, title=title or str(dataset.attrs.get("name", "")), background="rotation")


__all__ = ["curves_figure", "study_figure"]
