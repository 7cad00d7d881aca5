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


def trajectory_panels(traj, observable: str = "mo_se", windows=(250, 350, 5000), feature: int = 0):
    """The paper's Figure 4 top rows: the last ``windows`` recorded steps of one feature (spec §1.5)."""
    series = getattr(traj, observable)[:, feature]
    steps = traj.transient + traj.record_every * np.arange(len(series))
    fig, axes = plt.subplots(len(windows), 1, figsize=(7.0, 1.6 * len(windows)), constrained_layout=True)
    for ax, window in zip(np.atleast_1d(axes), windows):
        tail = slice(max(0, len(series) - window), None)
        ax.plot(steps[tail], series[tail], lw=0.6, color="k")
        ax.set_ylabel(label(observable, feature))
    np.atleast_1d(axes)[-1].set_xlabel("step $t$")
    return fig


def phase_planes(traj, planes=(("mo_se", 0, "mo_se", 1), ("att", 0, "att", 2))):
    """Phase planes of recorded observables, default the paper's (m^{o,se}_1, m^{o,se}_2), (a_1, a_3)."""
    fig, axes = plt.subplots(1, len(planes), figsize=(3.2 * len(planes), 3.0), constrained_layout=True)
    for ax, (obs_x, fx, obs_y, fy) in zip(np.atleast_1d(axes), planes):
        ax.plot(getattr(traj, obs_x)[:, fx], getattr(traj, obs_y)[:, fy], ",", color="k", alpha=0.6, rasterized=True)
        ax.set_xlabel(label(obs_x, fx))
        ax.set_ylabel(label(obs_y, fy))
    return fig


def spectrum_and_acf(series, max_lag: int = 100, title: str | None = None):
    """The paper's Figure 5 panels for one series: raw power spectrum (spec §4.3) on linear and log axes,
    the Welch spectrum (mean removed, Hann window), and the normalised autocorrelation."""
    from .analysis import autocorrelation, power_spectrum, power_spectrum_raw
    freqs, power = power_spectrum_raw(series)
    welch_f, welch_p = power_spectrum(series)
    fig, axes = plt.subplots(1, 3, figsize=(9.0, 2.6), constrained_layout=True)
    axes[0].plot(freqs[1:], power[1:], lw=0.6, color="k")
    axes[0].set_ylabel("power (raw, spec §4.3)")
    axes[1].semilogy(welch_f[1:], welch_p[1:], lw=0.6, color="k")
    axes[1].set_ylabel("power (Welch, log)")
    for ax in axes[:2]:
        ax.set_xlabel("frequency (cycles / step)")
    acf = autocorrelation(series, max_lag)
    axes[2].plot(np.arange(len(acf)), acf, lw=0.8, color="k")
    axes[2].set_xlabel("lag")
    axes[2].set_ylabel("autocorrelation")
    if title:
        fig.suptitle(title, fontsize=9)
    return fig


def lyapunov_spectrum_figure(traj):
    """Sorted Lyapunov spectrum with standard errors (spec §4.1, §1.5)."""
    fig, ax = plt.subplots(figsize=(3.4, 2.6), constrained_layout=True)
    index = np.arange(1, len(traj.lyapunov) + 1)
    ax.errorbar(index, traj.lyapunov, yerr=traj.lyapunov_stderr, fmt="o", ms=3, color="k")
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set_xlabel("index $i$")
    ax.set_ylabel(r"$\lambda_i$")
    return fig


#: Background colours of attractor classes (the reference's palette of spec §4.1 where it has one).
CLASS_COLOURS = {"fixed_point": "0.35", "periodic": "lightgray", "quasi_periodic": "lightblue",
                 "chaotic": "lightgreen", "hyperchaotic": "mistyrose", "unresolved": "khaki",
                 "divergent": "tab:red", "missing": "white"}


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


def class_legend(fig, labels_present, order=None) -> None:
    """A legend of the class colours present, below the axes."""
    from matplotlib.patches import Patch
    order = order or list(CLASS_COLOURS)
    handles = [Patch(color=CLASS_COLOURS[c], label=c.replace("_", " ")) for c in order
               if c in labels_present and c != "missing"]
    fig.legend(handles=handles, loc="outside lower center", ncol=max(len(handles), 1), frameon=False, fontsize=7)
