"""The onset study's figure (docs/onset.md §4): against the number of features M, one line per context length L,
mean ± standard error over weight seeds (:mod:`meanfield.studies.onset_scan`) — left the rest cycle's first loss
of stability β_c, right the crossover's β_o (where a real multiplier comes closest to +1 and turns away)."""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import NullFormatter

from ..studies.onset_scan import mean_and_error
from .style import legend_outside, paper_style, plt

#: The β_o marked on the log axes.
BETA_TICKS = (1, 1.5, 2, 3, 4, 6, 8)


@paper_style
def onset_figure(dataset, path=None):
    """β_c (left) and the crossover (right) against M (log axes) per L; open markers where only some seeds have
    one in the interval. Saved to ``path`` when given; returns the figure."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.4, 3.0), layout="constrained")
    features = dataset.features.values
    colors = plt.cm.viridis(np.linspace(0.0, 0.85, dataset.sizes["contexts"]))
    seeds = dataset.sizes["seed"]
    for color, context in zip(colors, dataset.contexts.values):
        at = dataset.sel(contexts=context)
        for ax, values in ((left, at.beta_c.values), (right, at.crossover.values)):
            mean, error, count = (np.array(column) for column in zip(*map(mean_and_error, values)))
            ax.errorbar(features, mean, yerr=error, color=color, marker="o", ms=3.5, lw=1.0, capsize=2,
                        label=f"$L = {context}$")
            partial = (count > 0) & (count < seeds)
            ax.plot(features[partial], mean[partial], "o", ms=7, mfc="none", color=color)
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(features, [str(m) for m in features])
        ax.set_yticks(BETA_TICKS, [f"{b:g}" for b in BETA_TICKS])
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("features $M$")
    left.set_ylabel(r"first loss of stability $\beta_c$")
    right.set_ylabel(r"crossover $\beta_o$ (closest approach of $\mu$ to $+1$)")
    left.set_title("rest cycle: NS, flip, fold or branch point", fontsize="medium")
    right.set_title("rest cycle: a real $\\mu$ near $+1$ turns away", fontsize="medium")
    fig.suptitle(f"random preset, $N_{{se}} = {dataset.attrs['semantic_bits']}$, {seeds} seeds", fontsize="medium")
    legend_outside(right)
    if path is not None:
        fig.savefig(path)
    return fig
