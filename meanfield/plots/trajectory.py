"""Figures of single trajectories: time series, phase planes, spectra and autocorrelation, Lyapunov spectra."""
from __future__ import annotations

import numpy as np

from ..analysis import autocorrelation, power_spectrum, power_spectrum_raw
from .style import label, plt


def trajectory_figure(traj, observable: str = "mo_se", window: int = 350):
    """The last ``window`` recorded steps of every feature, and the (feature 1, feature 2) phase plane.

    A divergent trajectory (``traj.diverged_at`` >= 0, docs/model.md §5.3) shows the ``window`` steps before
    the divergence, a red line at the step where its PID loop was stopped, and says so in the title."""
    series = getattr(traj, observable)
    steps = traj.transient + traj.record_every * np.arange(len(series))
    fig, (ax_t, ax_p) = plt.subplots(1, 2, figsize=(7.0, 2.6), gridspec_kw={"width_ratios": [2, 1]},
                                     constrained_layout=True)
    diverged = traj.diverged_at is not None and traj.diverged_at >= 0
    end = int(np.sum(steps < traj.diverged_at)) + 1 if diverged else len(series)
    tail = slice(max(0, end - window), end)
    for a in range(series.shape[1]):
        ax_t.plot(steps[tail], series[tail, a], lw=0.8, label=label(observable, a))
    title = rf"$\beta_o = {traj.model.beta_o:g}$, $\gamma = {traj.model.effective_gamma:.3f}$"
    if diverged:
        ax_t.axvline(traj.diverged_at, color="tab:red", ls="--", lw=1.0, label=f"diverged, t = {traj.diverged_at}")
        title += f": divergent at t = {traj.diverged_at}" + (" (before the recorded steps)" if end == 1 else "")
    ax_t.set_xlabel("step $t$")
    ax_t.legend(frameon=False, fontsize=8, ncol=series.shape[1] + diverged)
    ax_t.set_title(title, fontsize=9, color="tab:red" if diverged else "k")
    ax_p.plot(series[:, 0], series[:, 1 % series.shape[1]], ",", color="k", alpha=0.5)
    ax_p.set_xlabel(label(observable, 0))
    ax_p.set_ylabel(label(observable, 1 % series.shape[1]))
    return fig


def trajectory_panels(traj, observable: str = "mo_se", windows=(250, 350, 5000), feature: int = 0):
    """The paper's Figure 4 top rows: the last ``windows`` recorded steps of one feature (docs/model.md §1.3)."""
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
    """The paper's Figure 5 panels for one series: raw power spectrum (docs/model.md §7.2) on linear and log
    axes, the Welch spectrum (mean removed, Hann window), and the normalised autocorrelation."""
    freqs, power = power_spectrum_raw(series)
    welch_f, welch_p = power_spectrum(series)
    fig, axes = plt.subplots(1, 3, figsize=(9.0, 2.6), constrained_layout=True)
    axes[0].plot(freqs[1:], power[1:], lw=0.6, color="k")
    axes[0].set_ylabel("power (raw)")
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
    """Sorted Lyapunov spectrum with standard errors (docs/model.md §4.2)."""
    fig, ax = plt.subplots(figsize=(3.4, 2.6), constrained_layout=True)
    index = np.arange(1, len(traj.lyapunov) + 1)
    ax.errorbar(index, traj.lyapunov, yerr=traj.lyapunov_stderr, fmt="o", ms=3, color="k")
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set_xlabel("index $i$")
    ax.set_ylabel(r"$\lambda_i$")
    return fig
