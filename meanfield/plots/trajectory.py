"""Figures of single trajectories: time series, phase planes, spectra and autocorrelation, Lyapunov spectra.
Every title names β_o and the run's length (recorded steps after the transient)."""
from __future__ import annotations

import numpy as np

from ..analysis import autocorrelation, power_spectrum
from ..analysis.spectra import power_spectrum_raw
from .style import NAMES, SYMBOLS, label, legend_outside, paper_style, plt


def run_title(traj) -> str:
    """``β_o = 1.3, steps 5000..19999 (15000 recorded)`` for a Trajectory."""
    rows = next((len(getattr(traj, o)) for o in ("mo_se", "att", "mo", "mv", "mq", "mk")
                 if getattr(traj, o) is not None), 0)
    every = f", every {traj.record_every}" if traj.record_every > 1 else ""
    return (rf"$\beta_o = {traj.model.beta_o:g}$, steps {traj.transient}..{traj.steps - 1}{every} "
            f"({rows} recorded)")


def _phase_plane(ax, xs, ys, x_label, y_label) -> None:
    """A phase plane: points, equal aspect (one unit is the same length on both axes)."""
    ax.plot(xs, ys, ",", color="k", alpha=0.6, rasterized=True)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)


@paper_style
def trajectory_figure(traj, observable: str = "mo_se", window: int = 350):
    """The last ``window`` recorded steps of every feature, and the (feature 1, feature 2) phase plane of all
    recorded steps (``meanfield simulate --plot``).

    A divergent trajectory (``traj.diverged_at`` >= 0, docs/model.md §5.3) shows the ``window`` steps before
    the divergence, a red line at the step where its PID loop was stopped, and says so in the title."""
    series = getattr(traj, observable)
    steps = traj.transient + traj.record_every * np.arange(len(series))
    fig, (ax_t, ax_p) = plt.subplots(1, 2, figsize=(7.0, 2.6), gridspec_kw={"width_ratios": [2.2, 1]},
                                     layout="constrained")
    diverged = traj.diverged_at is not None and traj.diverged_at >= 0
    end = int(np.sum(steps < traj.diverged_at)) + 1 if diverged else len(series)
    tail = slice(max(0, end - window), end)
    for a in range(series.shape[1]):
        ax_t.plot(steps[tail], series[tail, a], lw=0.8, label=f"${SYMBOLS[observable]}_{a + 1}$")
    title = run_title(traj) + rf", $\gamma = {traj.model.effective_gamma:.3f}$"
    if diverged:
        ax_t.axvline(traj.diverged_at, color="tab:red", ls="--", lw=1.0, label=f"diverged, t = {traj.diverged_at}")
        title += f": divergent at t = {traj.diverged_at}" + (" (before the recorded steps)" if end == 1 else "")
    ax_t.set_xlabel("step $t$")
    ax_t.set_ylabel(f"${SYMBOLS[observable]}_a$ ({NAMES[observable]})")
    legend_outside(ax_t)
    ax_t.set_title(f"last {min(window, end)} recorded steps", loc="left")
    _phase_plane(ax_p, series[:, 0], series[:, 1 % series.shape[1]], label(observable, 0, wrap=True),
                 label(observable, 1 % series.shape[1], wrap=True))
    ax_p.set_title("all recorded steps", loc="left")
    fig.suptitle(title, color="tab:red" if diverged else "k")
    return fig


@paper_style
def trajectory_panels(traj, observable: str = "mo_se", windows=(250, 350, 5000), feature: int = 0):
    """The paper's Figure 4 top rows: the last ``windows`` recorded steps of one feature (docs/model.md §1.3),
    one panel per window (each its own x range, labelled), y ranges following the data."""
    series = getattr(traj, observable)[:, feature]
    steps = traj.transient + traj.record_every * np.arange(len(series))
    fig, axes = plt.subplots(len(windows), 1, figsize=(7.0, 1.5 * len(windows) + 0.4), layout="constrained")
    for n, (ax, window) in enumerate(zip(np.atleast_1d(axes), windows)):
        tail = slice(max(0, len(series) - window), None)
        ax.plot(steps[tail], series[tail], lw=0.6 if window > 1000 else 0.8, color="k",
                marker="." if window <= 400 else None, ms=2)
        ax.set_title(f"({chr(97 + n)}) last {min(window, len(series))} recorded steps", loc="left")
    np.atleast_1d(axes)[-1].set_xlabel("step $t$")
    fig.supylabel(label(observable, feature))                   # one label for the panels of one series
    fig.suptitle(run_title(traj))
    return fig


@paper_style
def phase_planes(traj, planes=(("mo_se", 0, "mo_se", 1), ("att", 0, "att", 2))):
    """Phase planes of recorded observables, default the paper's (m^{o,se}_1, m^{o,se}_2), (a_1, a_3); equal
    aspect."""
    fig, axes = plt.subplots(1, len(planes), figsize=(3.4 * len(planes), 3.2), layout="constrained")
    for n, (ax, (obs_x, fx, obs_y, fy)) in enumerate(zip(np.atleast_1d(axes), planes)):
        _phase_plane(ax, getattr(traj, obs_x)[:, fx], getattr(traj, obs_y)[:, fy], label(obs_x, fx, True),
                     label(obs_y, fy, True))
        ax.set_title(f"({chr(97 + n)})", loc="left")
    fig.suptitle(run_title(traj))
    return fig


@paper_style
def spectrum_and_acf(series, max_lag: int = 100, title: str | None = None):
    """The paper's Figure 5 panels for one series: raw power spectrum (docs/model.md §7.2) on linear and log
    axes, the Welch spectrum (mean removed, Hann window), and the normalised autocorrelation. ``title`` should
    name β_o (:func:`run_title`); the number of steps is added."""
    freqs, power = power_spectrum_raw(series)
    welch_f, welch_p = power_spectrum(series)
    fig, axes = plt.subplots(1, 3, figsize=(7.0, 2.4), layout="constrained")
    axes[0].plot(freqs[1:], power[1:], lw=0.6, color="k")
    axes[0].set_ylabel("power (raw)")
    axes[1].semilogy(welch_f[1:], welch_p[1:], lw=0.6, color="k")
    axes[1].set_ylabel("power (Welch)")
    for ax in axes[:2]:
        ax.set_xlabel("frequency (cycles / step)")
    acf = autocorrelation(series, max_lag)
    axes[2].plot(np.arange(len(acf)), acf, lw=0.8, color="k")
    axes[2].axhline(0, color="0.6", lw=0.5)
    axes[2].set_xlabel("lag (steps)")
    axes[2].set_ylabel("autocorrelation")
    for n, ax in enumerate(axes):
        ax.set_title(f"({chr(97 + n)})", loc="left")
    fig.suptitle((title + "; " if title else "") + f"{len(series)} recorded steps")
    return fig


@paper_style
def lyapunov_spectrum_figure(traj):
    """Sorted Lyapunov spectrum with standard errors (docs/model.md §4.2)."""
    fig, ax = plt.subplots(figsize=(3.4, 2.6), layout="constrained")
    index = np.arange(1, len(traj.lyapunov) + 1)
    ax.errorbar(index, traj.lyapunov, yerr=traj.lyapunov_stderr, fmt="o", ms=3, color="k", capsize=2)
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set_xlabel("index $i$")
    ax.set_ylabel(r"$\lambda_i$ (per step)")
    ax.set_title(run_title(traj), fontsize=7)
    return fig
