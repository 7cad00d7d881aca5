"""The finite-N network against the aligned mean field (docs/model.md §6.3): trajectories and the convergence
in N of :mod:`meanfield.studies.convergence`."""
from __future__ import annotations

import numpy as np

from ..model.spec import require_int
from ..studies.convergence import convergence_table
from .data import model_caption
from .style import SYMBOLS, label, legend_outside, paper_style, plt


@paper_style
def finite_convergence_figure(runs: dict, observable: str = "mo_se", feature: int = 0, window: int = 20,
                              trajectory_beta: float | None = None, threshold: float = 1e-2, path=None):
    """(a) the aligned MF, the expectation network over rows 0..L and replica 0 at a few N_se, at
    ``trajectory_beta`` (default the first β of ``runs``); (b) the replica-mean error over the first
    ``window`` aligned rows against N_se on log-log axes, one line per β, with an N^(-1/2) guide and the
    ``threshold`` line; titled with the model (β_o per panel). Saved to ``path`` (PNG, PDF, ... by suffix) when
    given; returns the figure."""
    window = require_int("window", window, 1)
    beta = next(iter(runs)) if trajectory_beta is None else trajectory_beta
    shown = runs[beta]
    fig, (ax_t, ax_e) = plt.subplots(1, 2, figsize=(7.0, 2.9), layout="constrained",
                                     gridspec_kw={"width_ratios": [1.25, 1]})
    first = shown[0]
    rows = np.arange(first.steps)
    start = first.aligned_from
    picks = shown[::max(1, len(shown) // 3)]
    colors = plt.cm.viridis(np.linspace(0.0, 0.85, len(picks)))
    for color, traj in zip(colors, picks):
        mantissa, exponent = f"{traj.n_bits:.1e}".split("e")
        ax_t.plot(rows, traj.replica[observable][0, :, feature], lw=0.8, color=color,
                  label=rf"$N = {mantissa}\times 10^{{{int(exponent)}}}$")
    ax_t.plot(rows[:start], first.expectation[observable][:start, feature], "--", lw=1.0, color="0.5",
              label="expectation")
    ax_t.plot(rows[start:], first.mean_field[observable][start:, feature], lw=1.4, color="k", label="mean field")
    ax_t.axvspan(start, start + window, color="0.92", zorder=0)
    ax_t.set_xlabel("token $t$")
    ax_t.set_ylabel(label(observable, feature))
    ax_t.set_title(rf"(a) $\beta_o = {beta:g}$, one replica per $N$; grey: the steps of (b)", loc="left")
    ax_t.legend(loc="lower left", bbox_to_anchor=(0.0, 1.08), ncol=3, frameon=False, handlelength=1.5,
                columnspacing=1.0, borderaxespad=0.0)
    table = convergence_table(runs, observable, window)
    for b, (sizes, errors, stderr) in sorted(table.items()):
        ax_e.errorbar(sizes, errors, yerr=stderr, marker="o", ms=3, lw=1.0, capsize=2, label=rf"$\beta_o = {b:g}$")
    sizes = np.array(sorted({n for s, _, _ in table.values() for n in s}), dtype=np.float64)
    anchor = 0.3 * min(e[0] for _, e, _ in table.values())
    ax_e.plot(sizes, anchor * np.sqrt(sizes[0] / sizes), ":", color="k", lw=1.0, label=r"$\propto N^{-1/2}$")
    ax_e.axhline(threshold, color="0.6", lw=0.8, ls="--", label=f"threshold {threshold:g}")
    ax_e.set_xscale("log")
    ax_e.set_yscale("log")
    ax_e.set_xlabel("semantic bits $N$")
    symbol = SYMBOLS[observable]
    ax_e.set_ylabel(rf"$\langle |{symbol}_N - {symbol}_{{MF}}| \rangle$, first {window} steps")
    ax_e.set_title(f"(b) distance to the mean field, {len(shown[0].replica[observable])} replicas", loc="left")
    legend_outside(ax_e)
    fig.suptitle("finite-N network against the mean field, " + model_caption(first.model.to_dict(), ("beta_o",)),
                 x=0.01, ha="left")
    if path is not None:
        fig.savefig(path, dpi=150)
    return fig
