"""Every figure kind explains itself without a caption (docs/model.md §3.2 for the symbols): a legend or colour
bar for every encoding, axis labels that name the observable in one convention, a title naming the run and
model, attractor colours distinct from each other and from the grey of the unsettled starts, located bifurcations drawn
unlike label brackets. Small synthetic data or a 4-point sweep of 700 steps."""
from types import SimpleNamespace

import numpy as np
import pytest
import xarray as xr
from matplotlib.colors import to_rgb

import meanfield as mf
from meanfield.analysis import LABELS
from meanfield.plots.attractors import attractors_figure
from meanfield.plots.branches import branches_figure
from meanfield.plots.style import (
    CLASS_COLOURS,
    LOCATED_COLOUR,
    OTHERS_COLOUR,
    UNSETTLED_COLOUR,
    attractor_colours,
    attractor_handles,
    attractor_names,
    plt,
)
from meanfield.plots.sweep import bifurcation_figure, class_bifurcation, class_map

from ..cli.helpers import run_text, write_sweep

GREY = to_rgb(UNSETTLED_COLOUR)
#: The smallest RGB distance between two colours called different: 0.15 of the unit cube's diagonal range per
#: channel is far above what anti-aliasing or PNG quantisation changes (1/255), and below the 0.2-0.3 that separate
#: neighbouring qualitative colours of matplotlib's palettes.
DIFFERENT = 0.15
#: The paper's effective attention gain γ = β_att·scaling_att/√M = 220/√3 (docs/model.md §1), printed to 6 digits.
PAPER_GAMMA = f"{220 / np.sqrt(3):.6g}"


def distance(a, b) -> float:
    return float(np.linalg.norm(np.subtract(to_rgb(a), to_rgb(b))))


def texts(legend) -> list:
    return [t.get_text() for t in legend.get_texts()]


def all_legend_texts(fig) -> list:
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    return [text for legend in legends for text in texts(legend)]


def assert_legible(fig, smallest: float = 6.0):
    """No text below ``smallest`` pt at the saved size (7 pt is the paper's body text; 6 pt the floor for
    tick labels and legends printed at 100 %)."""
    fig.canvas.draw()
    sizes = [t.get_fontsize() for t in fig.findobj(plt.Text) if t.get_text().strip()]
    assert sizes and min(sizes) >= smallest, min(sizes)


def test_attractor_palette_has_no_grey_and_no_repeats():
    ids = list(range(30))
    colours = attractor_colours(ids)
    named = [c for c in colours.values() if c != OTHERS_COLOUR]
    assert len(named) == 12 and list(colours.values()).count(OTHERS_COLOUR) == 18
    for n, a in enumerate(named + [OTHERS_COLOUR]):
        assert distance(a, GREY) > DIFFERENT, a
        rgb = to_rgb(a)
        assert max(rgb) - min(rgb) > 0.1, a                     # a hue, not a grey of any lightness
        for b in named[n + 1:]:
            assert distance(a, b) > DIFFERENT, (a, b)


def test_attractor_names_count_per_period_and_the_legend_ends_with_others():
    names = attractor_names({0: 24, 1: 0, 2: 24, 3: 60, 4: 0})
    assert names == {0: "p24 #1", 1: "aperiodic #1", 2: "p24 #2", 3: "p60 #1", 4: "aperiodic #2"}
    labels = {0: "periodic", 1: "chaotic", 2: "quasi_periodic", 3: "chaotic"}
    classed = attractor_names({0: 24, 1: 0, 2: 0, 3: 0}, labels)
    assert classed == {0: "p24 #1", 1: "chaotic #1", 2: "quasi-periodic #1", 3: "chaotic #2"}
    handles = attractor_handles(names, attractor_colours([2, 0, 4, 1, 3], named=3))
    assert [h.get_label() for h in handles] == ["p24 #2", "p24 #1", "aperiodic #2", "others (2)"]


def census_dataset(n_ids: int = 15, direction: str = "up") -> xr.Dataset:
    """A continuation over 6 values of β_o: ids 0-2 cycles of period 24 (ids 1, 2 with equal halves of the
    starts), the rest aperiodic sets with a small share each, chaotic and quasi-periodic by turns; a tenth of the
    starts unsettled."""
    values = np.linspace(2.5, 3.0, 6)
    period = np.zeros((6, n_ids), np.int32)
    period[:, :3] = 24
    fraction = np.full((6, n_ids), 0.9 * 0.1 / (n_ids - 2))
    fraction[:, 0] = 0.0                                        # held only by the carried start
    fraction[:, 1:3] = 0.9 * 0.45
    points = np.full((6, n_ids, 24, 3), np.nan)
    points[:, :3] = np.linspace(-0.5, 0.5, 24)[None, None, :, None] + 0.01 * np.arange(3)[None, :, None, None]
    summary = np.broadcast_to(np.linspace(-0.6, 0.6, 16)[None, None, :, None], (6, n_ids, 16, 3)).copy()
    label = np.where(period > 0, LABELS.index("periodic"),
                     np.where(np.arange(n_ids) % 2, LABELS.index("chaotic"), LABELS.index("quasi_periodic")))
    dims = ("beta_o", "attractor")
    return xr.Dataset({"fraction": (dims, fraction), "period": (dims, period), "label": (dims, label),
                       "points": (dims + ("cycle_point", "feature"), points),
                       "summary": (dims + ("quantile", "feature"), summary),
                       "unsettled": (("beta_o",), np.full(6, 0.1))},
                      coords={"beta_o": values}, attrs={"direction": direction, "label_names": " ".join(LABELS)})


def test_the_census_figure_names_every_attractor_and_every_mark():
    fig = attractors_figure(census_dataset(), backward=census_dataset(direction="down"), parameter=r"$\beta_o$",
                            title="a census of the paper model")
    top, bottom = fig.axes
    legend = texts(fig.legends[0])
    # ids ranked by their basin share: 1 and 2 (p24 #2, p24 #3) first, the 0-fraction cycle among the others
    assert legend[0] == "p24 #2" and legend[1] == "p24 #3"
    assert legend[-2:] == ["others (3)", "unsettled starts"] and len(legend) == 12 + 2
    # aperiodic ids by their class, numbered per class in id order: id 3 the first chaotic one, id 4 the first
    # quasi-periodic one, id 5 the second chaotic one
    assert {"chaotic #1", "quasi-periodic #1", "chaotic #2"} <= set(legend)
    assert not any(t.startswith("aperiodic") for t in legend)
    marks = texts(top.get_legend())
    assert any("cycle" in t for t in marks) and any("aperiodic set" in t for t in marks)
    assert any("backward" in t for t in marks) and any("carried start" in t for t in marks)
    assert top.get_ylabel() == "$a_1$ (attention output)" and bottom.get_ylabel().startswith("basin fraction")
    assert bottom.get_xlabel() == r"$\beta_o$" and fig.get_suptitle() == "a census of the paper model"
    stacked = [tuple(c.get_facecolor()[0][:3]) for c in bottom.collections]
    named = [c for c in stacked[:-1] if distance(c, OTHERS_COLOUR) > 1e-6]
    assert distance(stacked[-1], GREY) < 1e-6                   # the unsettled share on top, in its grey
    assert len(set(named)) == len(named) == 12 and all(distance(c, GREY) > DIFFERENT for c in named)
    assert_legible(fig)
    plt.close(fig)


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory):
    return write_sweep(tmp_path_factory.mktemp("figures") / "sweep.h5", run_text())


def test_the_class_diagram_draws_located_bifurcations_unlike_label_brackets(sweep_file):
    results = mf.sweep_results(sweep_file)
    assert results.sizes["transition"] > 0                     # the tiny sweep's classes change along β_o
    located = [SimpleNamespace(kind="fold", value=1.25), SimpleNamespace(kind="period_doubling", value=1.45),
               SimpleNamespace(kind="bracket", value=None)]
    fig = class_bifurcation(results, located=located)
    ax = fig.axes[0]
    entries = texts(ax.get_legend())
    assert "F: fold (multipliers)" in entries and "PD: period doubling (multipliers)" in entries
    assert "class change (label bracket)" in entries
    assert "Poincaré section points" in ax.get_legend().get_title().get_text()
    lines = [line for line in ax.get_lines() if distance(line.get_color(), LOCATED_COLOUR) < 1e-6
             and line.get_linestyle() == "-" and len(line.get_xdata()) == 2]
    assert sorted(line.get_xdata()[0] for line in lines) == [1.25, 1.45]   # full-height solid lines
    ticks = [c for c in ax.collections if c.get_segments() and distance(c.get_colors()[0], "0.25") < 1e-6]
    assert len(ticks) == 1 and len(ticks[0].get_segments()) == results.sizes["transition"]
    assert all(s[:, 1].max() <= 0.05 + 1e-12 for s in ticks[0].get_segments())   # ticks at the edge, not lines
    assert ax.get_ylabel() == "$m^{o,se}_1$ (semantic output mean field)"
    plt.close(fig)


def test_the_sweep_figures_have_titles_colour_bars_and_no_transition_lines(sweep_file):
    fig = bifurcation_figure(mf.sweep_results(sweep_file))
    density, bar, classes, exponents = fig.axes[0], fig.axes[-1], fig.axes[1], fig.axes[2]
    assert bar.get_ylabel() == "fraction of steps in bin"
    title = density.get_title(loc="left")
    assert title.startswith("tiny — paper model") and f"γ = {PAPER_GAMMA}" in title and "ε = 0.02" in title
    assert "4/4 points" in title and "steps 400..699" in title
    assert classes.get_ylabel() == density.get_ylabel() == "$m^{o,se}_1$ (semantic output mean field)"
    vertical = [line for line in exponents.get_lines() if len(line.get_xdata()) == 2
                and line.get_xdata()[0] == line.get_xdata()[1]]
    assert not vertical                                         # the class bands show the changes: no lines
    assert texts(exponents.get_legend())[0].startswith(r"$\lambda_1$") and fig.legends     # exponents, classes
    assert_legible(fig)
    plt.close(fig)


def test_the_class_map_has_its_class_legend(tmp_path):
    path = write_sweep(tmp_path / "map.h5", run_text("map", grid="beta_o = [1.0, 1.3]\nbeta_att = [2.0, 2.2]"))
    fig = class_map(mf.sweep_results(path))
    assert fig.legends and set(all_legend_texts(fig)) <= {c.replace("_", " ") for c in CLASS_COLOURS}
    assert fig.axes[0].get_xlabel() == r"$\beta_o$" and fig.axes[0].get_ylabel() == r"$\beta_{att}$"
    plt.close(fig)


def branch(values, level, stable):
    """A synthetic continued branch of a period-2 orbit at ±``level`` with max|μ| crossing 1 at the middle."""
    values = np.asarray(values, dtype=float)
    points = np.zeros((values.size, 2, 3))
    points[:, 0, 0], points[:, 1, 0] = level, -level
    multipliers = np.stack([0.5 + values - values.mean(), 0.1 * np.ones_like(values)], axis=1)
    return {"value": values, "points": points, "multipliers": multipliers, "stable": np.asarray(stable)}


def test_the_branches_figure_says_what_ns_f_and_pd_mean_at_a_legible_size():
    values = np.linspace(1.0, 2.0, 11)
    branches = [("rest cycle", branch(values, 0.2, values < 1.5), "tab:blue"),
                ("period-2 cycle", branch(values, 0.4, values > 1.5), "tab:red")]
    found = [SimpleNamespace(kind="neimark_sacker", value=1.2), SimpleNamespace(kind="fold", value=1.5),
             SimpleNamespace(kind="period_doubling", value=1.8)]
    fig = branches_figure(branches, found, diagram=(values, np.zeros((11, 4))), windows=[(1.0, 1.4), (1.4, 2.0)],
                          title="paper model")
    entries = texts(fig.legends[0])
    for text in ("NS: Neimark–Sacker (multipliers)", "F: fold (multipliers)", "PD: period doubling (multipliers)",
                 "rest cycle (stable)", "period-2 cycle (unstable)", "simulated orbits"):
        assert text in entries, (text, entries)
    assert fig.axes[0].get_ylabel() == "$a_1$ (attention output)" and "multiplier" in fig.axes[2].get_ylabel()
    assert fig.get_size_inches()[0] >= 7.0 and fig.get_suptitle() == "paper model"
    assert_legible(fig)
    plt.close(fig)


def test_the_pid_fractions_and_the_finite_n_figures_label_every_line():
    from meanfield.plots.finite import finite_convergence_figure
    from meanfield.plots.pid import CLASSES, fractions_figure
    from meanfield.studies.convergence import convergence_study
    rows = [dict({c: 0.0 for c in CLASSES}, variant=name, fixed_point=0.5, chaotic=0.5) for name in ("none", "P")]
    fig = fractions_figure(rows)
    assert {"fixed point", "chaotic"} <= set(all_legend_texts(fig)) and "fraction" in fig.axes[0].get_ylabel()
    plt.close(fig)
    model = mf.presets.paper()
    runs = convergence_study(model, betas=(0.5,), sizes=(990, 9900), replicas=4, steps=model.context + 1 + 5, seed=1)
    fig = finite_convergence_figure(runs, window=5)
    trajectories, errors = fig.axes
    assert trajectories.get_ylabel() == "$m^{o,se}_1$ (semantic output mean field)"
    assert {"mean field", "expectation"} <= set(texts(trajectories.get_legend()))
    assert {r"$\beta_o = 0.5$", r"$\propto N^{-1/2}$", "threshold 0.01"} <= set(texts(errors.get_legend()))
    assert fig.get_suptitle() == ("finite-N network against the mean field, paper model: M = 3, L = 4, "
                                  f"γ = {PAPER_GAMMA}, ε = 0.02")
    assert_legible(fig)
    plt.close(fig)


def test_the_basin_map_names_each_attractor_with_its_share_and_unsettled_in_grey():
    from meanfield.plots.basins import basins_figure
    # a 4 x 5 map along features 0 and 1 of a 4-row window: id 0 (a 24-cycle) on 8 starts, id 1 (chaotic) on 10,
    # 2 unsettled starts
    ids = np.array([[0, 0, 1, 1, 1], [0, 0, 1, 1, 1], [0, 0, 1, 1, -1], [0, 0, 1, 1, -1]], np.int32)
    direction = np.zeros((2, 4, 3))
    direction[0, :, 0] = direction[1, :, 1] = 1.0
    ds = xr.Dataset({"id": (("u", "v"), ids), "period": (("attractor",), np.array([24, 0], np.int32)),
                     "label": (("attractor",), np.array([LABELS.index("periodic"), LABELS.index("chaotic")])),
                     "direction": (("plane_axis", "window", "feature"), direction)},
                    coords={"u": np.linspace(-1, 1, 4), "v": np.linspace(-1, 1, 5), "attractor": [0, 1]},
                    attrs={"label_names": list(LABELS)})
    fig = basins_figure(ds, title="paper model, β_o = 2.8")
    ax = fig.axes[0]
    assert texts(fig.legends[0]) == ["p24 #1 (40.0%)", "chaotic #1 (50.0%)", "unsettled (10.0%)"]
    assert ax.get_xlabel() == "u: offset of feature 0 in every row"
    assert ax.get_ylabel() == "v: offset of feature 1 in every row"
    assert fig.get_suptitle() == "paper model, β_o = 2.8"
    patches = [tuple(h.get_facecolor()[:3]) for h in fig.legends[0].legend_handles]
    assert distance(patches[-1], GREY) < 1e-6 and all(distance(c, GREY) > DIFFERENT for c in patches[:-1])
    assert distance(patches[0], patches[1]) > DIFFERENT
    assert_legible(fig)
    plt.close(fig)
