"""Sweeps over N: the [finite] run-file table (docs/model.md §6)."""
from pathlib import Path

import h5py
import numpy as np
import pytest
from dask.distributed import Client

import meanfield as mf
from meanfield.errors import ConfigError
from meanfield.finite import simulate_finite_batch

QUICK = Path(__file__).resolve().parents[2] / "runs" / "finite_convergence_quick.toml"
BETAS = [0.5, 1.26405]
N_BITS = [990, 9900, 99000]


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory):
    """The quick run swept with chunk = 1 and chunk = 4 through the API (in-process Dask client)."""
    base = tmp_path_factory.mktemp("finite")
    paths = {}
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        for chunk in (1, 4):
            paths[chunk] = base / f"chunk{chunk}.h5"
            mf.sweep(mf.load_run(QUICK, chunk=chunk), paths[chunk], place=mf.Place(client=client), progress=False)
    return paths


def test_quick_run_has_the_n_bits_axis(quick_runs):
    with h5py.File(quick_runs[4], "r") as f:
        assert f["done"].shape == (2, 3) and f["done"][...].all()
        np.testing.assert_array_equal(f["beta_o"][...], BETAS)
        np.testing.assert_array_equal(f["n_bits"][...], N_BITS)
        assert [d[0].name for d in f["finite_error"].dims] == ["/beta_o", "/n_bits"]
        assert f["finite_error"].shape == f["finite_error_stderr"].shape == (2, 3)
        assert f["hist"].shape[:2] == (2, 3) and f["hist"][...].sum() > 0
        assert np.isnan(f["evidence"][...]).all() and np.isnan(f["max_integral"][...]).all()
        assert (f["diverged_at"][...] == -1).all()
        assert "lyapunov" not in f and "final_att" not in f


def test_error_falls_with_n_at_beta_half(quick_runs):
    with h5py.File(quick_runs[4], "r") as f:
        error = f["finite_error"][0]
        assert np.all(f["finite_error_stderr"][...] > 0)
    assert np.all(error[:-1] / error[1:] >= 2), error     # at least a factor 2 per decade (≈ √10 expected)


def test_error_equals_a_direct_computation(quick_runs):
    run = mf.load_run(QUICK)
    model, context = run.model, run.model.context
    with h5py.File(quick_runs[4], "r") as f:
        stored, stored_se = f["finite_error"][...], f["finite_error_stderr"][...]
    for j, n_bits in enumerate(N_BITS):
        batch = simulate_finite_batch(model, n_bits, 200, mf.Replicas(16, seed=0),
                                      parameters={"beta_o": np.array(BETAS)})
        rows = slice(context + 1, context + 21)
        err = np.abs(batch.replica["mo_se"][:, :, rows] - batch.mean_field["mo_se"][:, None, rows]).mean(axis=(2, 3))
        np.testing.assert_allclose(stored[:, j], err.mean(axis=1), rtol=1e-12, atol=0)
        np.testing.assert_allclose(stored_se[:, j], err.std(axis=1, ddof=1) / 4, rtol=1e-12, atol=0)


def test_chunking_does_not_change_the_results(quick_runs):
    with h5py.File(quick_runs[1], "r") as a, h5py.File(quick_runs[4], "r") as b:
        names = [n for n, obj in a.items() if isinstance(obj, h5py.Dataset)]
        assert "finite_error" in names and "hist" in names
        for name in names:
            np.testing.assert_array_equal(a[name][...], b[name][...], err_msg=name)


TEXT = QUICK.read_text()


@pytest.mark.parametrize("old, new, key", [
    ("n_bits = [990, 9900, 99000]", "n_bits = [990, 1000]", "finite.n_bits"),
    ("n_bits = [990, 9900, 99000]", "n_bits = [0, 990]", "finite.n_bits"),
    ("n_bits = [990, 9900, 99000]", "n_bits = [-99]", "finite.n_bits"),
    ("replicas = 16", "replicas = 0", "finite.replicas"),
    ("lyapunov = false", "lyapunov = true", "lyapunov"),
    ("sampler = \"binomial\"", "sampler = \"exact\"", "finite.sampler"),
    ("aligned_steps = 20", "aligned_steps = 20\nwindow = 3", "window"),
    ("steps = 200", "steps = 25", "steps"),
])
def test_bad_finite_tables(old, new, key):
    assert old in TEXT
    with pytest.raises(ConfigError, match=key):
        mf.load_run(TEXT.replace(old, new))


def test_convergence_figure(quick_runs, tmp_path):
    from meanfield.plots.sweep import finite_error_figure
    fig = finite_error_figure(quick_runs[4])
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert len(ax.get_legend().get_texts()) == len(BETAS) + 1        # one line per β plus the N^-1/2 guide
    fig.savefig(tmp_path / "f.png")
