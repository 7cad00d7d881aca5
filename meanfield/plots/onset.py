"""The onset study's figure (docs/onset.md): β_c of the rest cycle against the number of features M, one line
per context length L, mean ± standard error over weight seeds (:mod:`meanfield.studies.onset_scan`)."""
from __future__ import annotations

import numpy as np

from .style import legend_outside, paper_style, plt


@paper_style
def onset_figure(dataset, path=None, guide_from: int = 12):
    """β_c against M (log axis) per L, error bars over seeds; open markers where some seeds have no onset in
    the interval; a dashed c/√M guide, c the mean of β_c·√M over the onsets at M ≥ ``guide_from`` (docs/onset.md
    §4). Saved to ``path`` when given; returns the figure."""
    fig, ax = plt.subplots(figsize=(4.2, 3.0), layout="constrained")
    features = dataset.features.values
    colors = plt.cm.viridis(np.linspace(0.0, 0.85, dataset.sizes["contexts"]))
    for color, context in zip(colors, dataset.contexts.values):
        beta = dataset.beta_c.sel(contexts=context).values           # (features, seed)
        found = np.isfinite(beta)
        count = found.sum(axis=1)
        mean = np.where(count > 0, np.nansum(beta, axis=1) / np.maximum(count, 1), np.nan)
        spread = np.array([np.std(row[ok], ddof=1) / np.sqrt(ok.sum()) if ok.sum() > 1 else np.nan
                           for row, ok in zip(beta, found)])
        ax.errorbar(features, mean, yerr=spread, color=color, marker="o", ms=3.5, lw=1.0, capsize=2,
                    label=f"$L = {context}$")
        partial = (count > 0) & (count < beta.shape[1])
        ax.plot(features[partial], mean[partial], "o", ms=7, mfc="none", color=color)
    large = dataset.features.values >= guide_from
    scaled = (dataset.beta_c * np.sqrt(dataset.features)).values[large]
    if np.isfinite(scaled).any():
        c = float(np.nanmean(scaled))
        ax.plot(features, c / np.sqrt(features), "--", lw=0.9, color="0.4",
                label=rf"${c:.1f}/\sqrt{{M}}$ (M $\geq$ {guide_from})")
    ax.set_xscale("log", base=2)
    ax.set_xticks(features, [str(m) for m in features])
    ax.set_xlabel("features $M$")
    ax.set_ylabel(r"onset $\beta_c$ (rest cycle)")
    ax.set_title(f"random preset, $N_{{se}} = {dataset.attrs['semantic_bits']}$, "
                 f"{dataset.sizes['seed']} seeds", fontsize="medium")
    legend_outside(ax)
    if path is not None:
        fig.savefig(path)
    return fig
