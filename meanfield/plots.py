"""Figures (matplotlib, Agg): readable at paper size, axis labels with the paper's symbols."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

#: Axis labels of the observables (spec §1.3 step 8).
SYMBOLS = {"att": "a", "mo": "m^o", "mo_se": "m^{o,se}", "mv": "m^v", "mq": "m^q", "mk": "m^k"}


def label(observable: str, feature: int) -> str:
    """Mathtext label such as ``$m^{o,se}_1$`` (features numbered from 1 as in the paper)."""
    return f"${SYMBOLS[observable]}_{feature + 1}$"


def trajectory_figure(traj, observable: str = "mo_se", window: int = 350):
    """The last ``window`` recorded steps of every feature, and the (feature 1, feature 2) phase plane."""
    series = getattr(traj, observable)
    steps = traj.transient + traj.record_every * np.arange(len(series))
    fig, (ax_t, ax_p) = plt.subplots(1, 2, figsize=(7.0, 2.6), gridspec_kw={"width_ratios": [2, 1]},
                                     constrained_layout=True)
    tail = slice(max(0, len(series) - window), None)
    for a in range(series.shape[1]):
        ax_t.plot(steps[tail], series[tail, a], lw=0.8, label=label(observable, a))
    ax_t.set_xlabel("step $t$")
    ax_t.legend(frameon=False, fontsize=8, ncol=series.shape[1])
    ax_t.set_title(rf"$\beta_o = {traj.model.beta_o:g}$, $\gamma = {traj.model.effective_gamma:.3f}$", fontsize=9)
    ax_p.plot(series[:, 0], series[:, 1 % series.shape[1]], ",", color="k", alpha=0.5)
    ax_p.set_xlabel(label(observable, 0))
    ax_p.set_ylabel(label(observable, 1 % series.shape[1]))
    return fig
