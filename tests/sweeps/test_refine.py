"""Locating transitions by bisection (docs/classification.md §9): refinement rounds stored in the sweep file,
resumable, deterministic; `meanfield analyze --refine` prints the located transitions."""
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest
from dask.distributed import Client
from matplotlib.collections import LineCollection

import meanfield as mf
from meanfield.errors import ConfigError
from meanfield.model.equations import mean_field_step, step_tables
from meanfield.sweeps.results.refine import classified_points, refine, transition_table, transitions

from ..by_hand import periodic_point
from .helpers import tiny_text

pytestmark = pytest.mark.integration  # in-process Dask (the swept fixture); the CLI test is system

# β_o = 1.2 is the rest state (a fixed point of the 4-step map) and 1.35 chaos (λ1 ≈ 0.09, docs/classification.md
# §7): somewhere between them the class changes
RUN = tiny_text(num=2, steps=20_000, transient=10_000, lyapunov=2, chunk=2).replace(
    "beta_o = { start = 1.0, stop = 2.6, num = 2 }", "beta_o = [1.2, 1.35]")


L = 4  # the paper model's context: the rest state is a fixed point of the L-step map


def rest_cycle(beta, x, pe):
    """The rest cycle at ``beta`` (a fixed point of the L-step map) and the largest modulus of its multipliers
    (tests/by_hand.py: nothing of the classifier, the sweep or meanfield's orbit code)."""
    x, mu = periodic_point(mf.presets.paper(beta_o=beta), x, pe, L, 1e-13)
    return x, float(np.abs(mu).max())


def rest_cycle_loses_stability(start=1.2, step=0.0025, resolution=1e-7):
    """The β_o at which the rest cycle, followed up from ``start`` (where the sweep's own checkpoint start
    settles on it), first has a multiplier of modulus 1: marched in steps of ``step``, then bisected."""
    model = mf.presets.paper(beta_o=start)
    att, pe = np.asarray(model.checkpoint.att, dtype=float), np.asarray(model.checkpoint.pe, dtype=float)
    tables = step_tables(model)
    for _ in range(4000):                           # to within Newton's reach (|μ| ≈ 0.95 per L steps here)
        att, pe, _ = mean_field_step(model, att, pe, tables)
    x, modulus = rest_cycle(start, att.ravel(), pe)
    assert modulus < 1
    lo = hi = start
    while modulus < 1:
        lo, x_lo, hi = hi, x, hi + step
        x, modulus = rest_cycle(hi, x, pe)
    x = x_lo
    while hi - lo > resolution:
        mid = (lo + hi) / 2
        x_mid, modulus = rest_cycle(mid, x, pe)
        lo, hi, x = (mid, hi, x_mid) if modulus < 1 else (lo, mid, x)
    return (lo + hi) / 2


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    path = tmp_path_factory.mktemp("refine") / "run.h5"
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        mf.sweep(mf.load_run(RUN), path, place=mf.Place(client=client), progress=False)
    return path


def test_refinement_brackets_every_transition_and_resumes(swept, tmp_path):
    path = tmp_path / "a.h5"
    shutil.copy(swept, path)
    assert [(t.below, t.above) for t in transitions(*classified_points(path)[1:])] == [("fixed_point", "chaotic")]
    partial = refine(path, 0.01, max_rounds=2, progress=False)        # interrupted after two rounds
    assert max(t.width for t in partial) > 0.01
    found = refine(path, 0.01, progress=False)                        # resumes: rounds 0 and 1 are reused
    assert found and all(t.width <= 0.01 for t in found)
    assert all(1.2 <= t.low < t.high <= 1.35 for t in found)
    # the first bracket holds the point where the rest cycle loses stability, located here independently
    # (β_o = 1.2434445, to 1e-7 by the bisection; central differences move |μ| by ~1e-11, β_o by less: no
    # tolerance is needed against a bracket whose ends lie 6e-3 and 3e-3 away)
    onset = rest_cycle_loses_stability()
    assert found[0].below == "fixed_point" and found[0].low < onset < found[0].high
    # classes alternate consistently along the axis: each bracket starts where the previous one ended
    assert found[0].below == "fixed_point" and found[-1].above == "chaotic"
    assert all(a.above == b.below for a, b in zip(found, found[1:]))
    with h5py.File(path, "r") as f:
        rounds = sorted(f["refine"])
        assert rounds[:2] == ["round_00", "round_01"] and all(f["refine"][r]["done"][...].all() for r in rounds)
    # deterministic: the same refinement in one go gives the same points and transitions
    fresh = tmp_path / "b.h5"
    shutil.copy(swept, fresh)
    assert refine(fresh, 0.01, progress=False) == found
    assert refine(path, 0.01, progress=False) == found                # nothing left to do
    assert "located transitions in beta_o (resolution 0.01)" in transition_table("beta_o", found, 0.01)


def test_the_results_dataset_carries_the_rounds_and_the_transitions(swept, tmp_path):
    """mf.sweep_results: the labels decided now, every refinement round's points (read back with h5py) and the
    transitions that refine located, which the figures draw without deciding anything."""
    from meanfield.plots.sweep import class_bifurcation
    path = tmp_path / "d.h5"
    shutil.copy(swept, path)
    with pytest.raises(ConfigError, match="sweep_results"):
        class_bifurcation(path)                           # an unanalysed file holds no labels to draw
    found = refine(path, 0.02, progress=False)
    with h5py.File(path, "r") as f:
        rounds = [f["refine"][r] for r in sorted(f["refine"])]
        values = np.concatenate([r["beta_o"][...] for r in rounds])
        hist = np.concatenate([r["hist"][...] for r in rounds])
    ds = mf.sweep_results(path)
    assert [mf.analysis.LABELS[c] for c in ds["label"].values] == ["fixed_point", "chaotic"]
    assert ds["refined_value"].values.tolist() == values.tolist()
    assert np.array_equal(ds["refined_hist"].values, hist) and ds["refined_hist"].dims[0] == "refined"
    located = list(zip(ds["transition_low"].values, ds["transition_high"].values, ds["transition_below"].values,
                       ds["transition_above"].values))
    assert located == [(t.low, t.high, t.below, t.above) for t in found]
    fig = class_bifurcation(ds)
    # one tick on the axis per transition, at the centre of its bracket
    ticks = [x for c in fig.axes[0].collections if isinstance(c, LineCollection) for (x, _), _ in c.get_segments()]
    assert sorted(ticks) == pytest.approx(sorted((t.low + t.high) / 2 for t in found), abs=0)


@pytest.mark.system
@pytest.mark.slow  # CLI processes: CI, not the fast loop
def test_cli_refine_prints_the_table_and_marks_the_figure(swept, tmp_path):
    path = tmp_path / "c.h5"
    shutil.copy(swept, path)
    cli = [sys.executable, "-m", "meanfield.cli"]
    done = subprocess.run(cli + ["analyze", str(path), "--refine", "0.02"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "located transitions in beta_o" in done.stdout and "fixed_point ->" in done.stdout
    with h5py.File(path, "r") as f:
        assert "transitions" in f["analysis"].attrs
    out = tmp_path / "classes.png"
    done = subprocess.run(cli + ["plot", "classes", str(path), "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for bad in (["--refine", "0"], ["--refine", "0.1", "--max-rounds", "0"], ["--set", "min_repeats=2.5"]):
        done = subprocess.run(cli + ["analyze", str(path)] + bad, capture_output=True, text=True)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.integration
def test_refinement_needs_a_one_dimensional_complete_sweep(tmp_path):
    two_d = tiny_text(num=2, steps=400, transient=200, lyapunov="false", chunk=2).replace(
        "[grid]\n", "[grid]\nbeta_att = [2.0, 2.2]\n")
    path = tmp_path / "2d.h5"
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        mf.sweep(mf.load_run(two_d), path, place=mf.Place(client=client), progress=False)
    with pytest.raises(ConfigError, match="1-D"):
        refine(path, 0.1, progress=False)
