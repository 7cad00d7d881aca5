"""Comparison of PID variants (docs/model.md §5.4): collapse and robustness metrics, the comparison of sweep
files (written here without Dask: compute_chunk + write_points), figures and table free of NaN/inf."""

import numpy as np
import pytest

import meanfield as mf
from meanfield.cli import main
from meanfield.studies.comparison import check_same_grid, compare, load_sweep, table_markdown
from meanfield.studies.pid import effective_rank, robustness, token_spread, variant

RUN = """
name = "{name}"
steps = 700
transient = 400
lyapunov = 3
chunk = 4

[model]
preset = "paper"
{control}

[grid]
{grid}

[record]
observables = ["mo_se", "att"]
tail = 300

[reductions]
observable = "mo_se"
bins = 40
band_pairs = []
"""


def write_sweep(tmp_path, name, grid, control=""):
    from meanfield.sweeps.execute.tasks import compute_chunk
    from meanfield.sweeps.store import create_sweep, write_points
    run = mf.load_run(RUN.format(name=name, grid=grid, control=control))
    path = tmp_path / f"{name}.h5"
    f = create_sweep(path, run)
    with f:
        indices = np.arange(run.n_points)
        write_points(f, run, indices, compute_chunk(run, indices, np.full(run.n_points, -1)))
    return str(path)


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pid")
    grid = "beta_o = { start = 1.0, stop = 1.6, num = 4 }"
    return [write_sweep(tmp, "none", grid),
            write_sweep(tmp, "p_stable", grid, "control = { kp = 0.5 }"),
            write_sweep(tmp, "p_unstable", grid, "control = { kp = 3.0 }"),
            write_sweep(tmp, "map_kp", grid + "\ncontrol.kp = [0.0, 0.5, 3.0]")]


def test_effective_rank_and_spread():
    same = np.tile([[0.3, -0.2, 0.1]], (10, 1))
    assert effective_rank(same, 4) == pytest.approx(1.0)
    assert token_spread(same, 4) == pytest.approx(0.0)
    orth = np.tile(np.eye(3), (4, 1))                       # every window of 3 rows spans all 3 directions
    assert effective_rank(orth, 3) == pytest.approx(3.0)
    bad = same.copy()
    bad[5, 0] = np.nan
    assert np.isnan(effective_rank(bad, 4)) and np.isnan(token_spread(bad, 4))


def test_robustness_fixed_point_and_divergence():
    """At a stable fixed point perturbations die out (distances ~ 0); an unstable P loop (K_P = 3) is flagged
    divergent with NaN (never inf) metrics."""
    model = mf.presets.paper()
    rob = robustness(variant(model, {"kp": 0.5}), [1.0], 1500, 1000, deltas=(1e-6, 1e-2), directions=2)
    assert not rob["divergent"][0]
    assert np.all(rob["trajectory_distance"] < 1e-8) and np.all(rob["attractor_distance"] < 1e-8)
    assert rob["effective_rank"][0] >= 1.0
    bad = robustness(variant(model, {"kp": 3.0}), [1.0], 300, 200, deltas=(1e-3,), directions=2)
    assert bad["divergent"][0] and np.isnan(bad["trajectory_distance"]).all()
    for key in ("trajectory_distance", "attractor_distance", "effective_rank", "token_spread"):
        assert not np.any(np.isinf(bad[key]))


def test_compare_table_and_figures(sweeps, tmp_path):
    lines, rows, maps = compare(sweeps, probe=2)
    assert [s.name for s in lines] == ["none", "p_stable", "p_unstable"] and [s.name for s in maps] == ["map_kp"]
    by_name = {r["variant"]: r for r in rows}
    assert by_name["p_unstable"]["divergent"] == 1.0 and by_name["p_unstable"]["probe_divergent"] == 1.0
    assert by_name["none"]["divergent"] == 0.0 and by_name["p_stable"]["divergent"] == 0.0
    for r in rows:
        assert sum(r[c] for c in ("fixed_point", "periodic", "quasi_periodic", "chaotic", "unresolved",
                                  "divergent")) == pytest.approx(1.0)
    assert set(maps[0].labels[:, 2]) == {"divergent"} and "divergent" not in maps[0].labels[:, :2]
    text = table_markdown(rows)
    assert "nan" not in text.lower() and "inf" not in text.lower()
    from meanfield.plots.pid import comparison_figure
    fig = comparison_figure(lines, rows, maps)
    assert fig.get_suptitle().startswith("PID variants of the paper model: M = 3, L = 4, γ = 127.017")
    for ax in fig.axes:
        for line in ax.get_lines():
            assert np.all(np.isfinite(np.asarray(line.get_ydata(), dtype=float)))


def test_order_and_colours_do_not_depend_on_the_argument_order(sweeps, tmp_path):
    """Panels, table rows and colours follow the variants (none, then P by gain), not the command line."""
    from meanfield.plots.pid import VARIANT_COLOURS, variant_styles
    lines, rows, maps = compare(sweeps, probe=1)
    again, rows_again, maps_again = compare(sweeps[::-1], probe=1)
    assert [s.name for s in again] == [s.name for s in lines] == ["none", "p_stable", "p_unstable"]
    assert [r["variant"] for r in rows_again] == [r["variant"] for r in rows]
    assert variant_styles(again) == variant_styles(lines)
    styles = variant_styles(lines)
    assert styles[0]["color"] == VARIANT_COLOURS["none"] and styles[1]["color"] == VARIANT_COLOURS["P"]
    assert styles[1]["color"] == styles[2]["color"] and styles[1]["ls"] != styles[2]["ls"]   # two P variants


def test_cli_compare(sweeps, tmp_path, capsys):
    prefix = tmp_path / "out" / "cmp"
    assert main(["compare", *sweeps, "-o", str(prefix), "--probe", "1"]) == 0
    for suffix in (".png", ".md", ".csv", "_fractions.png"):
        assert (tmp_path / "out" / f"cmp{suffix}").stat().st_size > 0
    assert "| p_unstable |" in capsys.readouterr().out


def test_compare_refuses_other_grids_and_non_sweeps(sweeps, tmp_path):
    other = write_sweep(tmp_path, "other", "beta_o = [1.0, 1.1]")
    with pytest.raises(mf.StoreError, match="grid"):
        check_same_grid([load_sweep(sweeps[0]), load_sweep(other)])
    (tmp_path / "junk.h5").write_bytes(b"not hdf5")
    assert main(["compare", str(tmp_path / "junk.h5"), "-o", str(tmp_path / "x")]) == 2
    with pytest.raises(mf.ConfigError):
        variant(mf.presets.paper(), "PIDD")
