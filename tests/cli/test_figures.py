"""The figures a researcher puts in a paper: every density panel has a labelled colour bar, legends stay out of
the data, stacked panels share x and their y ranges follow the data, exponents are "per step", titles name
β_o and the run length, phase planes have equal aspect, and no text is cut off by the figure's edge."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.plots.style import plt
from meanfield.plots.sweep import bifurcation_figure, lyapunov_vs_parameter
from meanfield.plots.trajectory import phase_planes, spectrum_and_acf, trajectory_figure, trajectory_panels


def assert_nothing_clipped(fig):
    """Everything drawn (titles, labels, tick labels, legends, colour bars) lies inside the figure."""
    fig.canvas.draw()
    drawn = fig.get_tightbbox(fig.canvas.get_renderer())          # inches
    width, height = fig.get_size_inches()
    tolerance = 0.02
    assert drawn.x0 >= -tolerance and drawn.y0 >= -tolerance, drawn
    assert drawn.x1 <= width + tolerance and drawn.y1 <= height + tolerance, (drawn, width, height)


def assert_legends_outside(fig):
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None:
            inner = ax.get_window_extent(renderer).shrunk(0.98, 0.98)
            assert not legend.get_window_extent(renderer).overlaps(inner), ax.get_ylabel()


@pytest.fixture(scope="module")
def traj():
    return mf.simulate(mf.presets.paper(beta_o=1.3), 3000, 1000, record=("mo_se", "att"), lyapunov=3)


def test_the_bifurcation_figure(inputs):
    fig = bifurcation_figure(mf.sweep_results(inputs / "sweep.h5"))
    assert_nothing_clipped(fig)
    assert_legends_outside(fig)
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "fraction of steps in bin"]
    assert len(bars) == 1                                   # the density panel's colour bar, labelled
    panels = [ax for ax in fig.axes if ax not in bars]
    assert len(panels) == 3 and len({ax.get_xlim() for ax in panels}) == 1
    assert "per step" in panels[2].get_ylabel()
    density = panels[0]
    values = np.ma.getmaskarray(density.images[0].get_array())
    rows = np.flatnonzero(~values.all(axis=1))
    y0, y1 = density.images[0].get_extent()[2:]
    width = (y1 - y0) / values.shape[0]
    low, high = y0 + rows[0] * width, y0 + (rows[-1] + 1) * width
    span = density.get_ylim()
    assert span[0] <= low and high <= span[1] and (span[1] - span[0]) <= 1.1 * (high - low) + 0.1
    plt.close(fig)


def test_the_class_map_and_its_legend_fit(inputs):
    from meanfield.plots.sweep import class_map
    fig = class_map(mf.sweep_results(inputs / "map.h5"))
    assert_nothing_clipped(fig)
    plt.close(fig)


def test_lyapunov_exponents_keep_their_styles_and_errors(inputs):
    fig = lyapunov_vs_parameter(mf.sweep_results(inputs / "sweep.h5"), k=3)
    ax = fig.axes[0]
    lines = [line for line in ax.get_lines() if line.get_label().startswith("$")]
    assert len({(line.get_color(), str(line.get_linestyle())) for line in lines}) == 3
    assert len(ax.collections) >= 3                         # the ± 1 s.e. bands
    assert_nothing_clipped(fig)
    assert_legends_outside(fig)
    plt.close(fig)


def test_trajectory_figures_name_beta_and_length(traj):
    for fig in (trajectory_figure(traj), trajectory_panels(traj), phase_planes(traj),
                spectrum_and_acf(traj.mo_se[:, 0], title=r"$\beta_o = 1.3$")):
        title = fig.get_suptitle()
        assert "1.3" in title and ("2000 recorded" in title or "2000" in title), title
        assert_nothing_clipped(fig)
        assert_legends_outside(fig)
        plt.close(fig)
    fig = phase_planes(traj)
    assert all(ax.get_aspect() == 1.0 for ax in fig.axes)
    plt.close(fig)
