"""On-device reductions equal their CPU counterparts on the same data, in the simulator."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.sweeps.config.tables import ReductionSpec

from .helpers import SIMULATOR

pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIMULATOR, reason="needs NUMBA_ENABLE_CUDASIM=1 (separate process)")]


def awkward_records(n=7, rows=240, m=3, seed=0):
    """Trajectories with every edge case: band hits at and beyond ±tol, a NaN point, a value out of the
    quantisation range, values on bin edges and at both ends of y_range, a repeated-value orbit."""
    rng = np.random.default_rng(seed)
    rec = rng.uniform(-1, 1, (n, rows, m))
    rec[:, ::5, 1] = rng.choice([0.0, 0.0005, -0.001, 0.001, 0.0011], size=rec[:, ::5, 1].shape)
    rec[1, 5, 2] = np.nan
    rec[2, 7, 0] = 1.7
    rec[3] = np.round(rec[3], 1)                       # bin edges of 20 bins on [-1, 1], few distinct levels
    rec[4, :, 0] = 1.0
    rec[4, :10, 0] = -1.0
    rec[5, :, 2] = -1.0004                             # just below -scale: code 0 by truncation
    return rec


def on_device(rec, dtype=np.float64):
    from meanfield.kernels.cuda import to_device
    return to_device(np.ascontiguousarray(np.moveaxis(rec.astype(dtype), 0, -1)[:, None]))


def assert_same(cpu, gpu):
    assert set(cpu) == set(gpu)
    for key in cpu:
        assert gpu[key].dtype == cpu[key].dtype, key
        np.testing.assert_array_equal(gpu[key], cpu[key], err_msg=key)


@pytest.mark.parametrize("spec", [ReductionSpec(bins=20, band_pairs=((0, 1), (2, 1)), band_cap=8),
                                  ReductionSpec(bins=500, y_range=(-0.5, 1.0), band_tol=0.01, band_cap=200,
                                                scale=0.9)])
def test_reductions_equal_cpu(spec):
    from meanfield.analysis.reductions import reduce_points
    from meanfield.kernels.cuda_reductions import reduce_points_device
    rec = awkward_records()
    assert_same(reduce_points(rec, spec), reduce_points_device(on_device(rec), spec))


def test_float32_records_reduce_like_their_float64_copy():
    from meanfield.analysis.reductions import reduce_points
    from meanfield.kernels.cuda_reductions import reduce_points_device
    spec = ReductionSpec(bins=50, band_pairs=((0, 1),), band_tol=0.05)
    rec = awkward_records(seed=2).astype(np.float32)
    assert_same(reduce_points(rec.astype(np.float64), spec), reduce_points_device(on_device(rec, np.float32), spec))


def test_point_series_gathers_points():
    from meanfield.kernels.cuda_reductions import point_series
    rec = awkward_records()
    np.testing.assert_array_equal(point_series(on_device(rec), 0, [4, 0]), rec[[4, 0]])


def test_reducing_backend_in_simulate_batch():
    """backend=ReducingBackend: its reductions equal reduce_points of the plain CUDA run's records (the same
    kernel: the same trajectories, on a GPU too), its tails are the last rows."""
    from meanfield.analysis.reductions import reduce_points
    from meanfield.kernels.cuda_reductions import ReducingBackend
    from meanfield.simulation import simulate_batch
    model = mf.presets.paper()
    kw = dict(parameters={"beta_o": np.linspace(0.5, 3.0, 6)}, record=("att", "mo_se"), lyapunov=2)
    spec = ReductionSpec(bins=40, band_tol=0.05)
    plain = simulate_batch(model, 120, 20, **kw, compute=mf.Compute(backend="cuda"))
    kernel = ReducingBackend(spec, tail=9)
    gpu = simulate_batch(model, 120, 20, **kw, compute=mf.Compute(backend=kernel))
    assert_same(reduce_points(plain.records["mo_se"], spec), kernel.reduced)
    for name in kw["record"]:
        np.testing.assert_array_equal(gpu.records[name], plain.records[name][:, -9:])
    np.testing.assert_array_equal(gpu.lyapunov, plain.lyapunov)


def test_spectra_and_autocorrelations_match_analysis():
    from meanfield.analysis.correlation import autocorrelation
    from meanfield.analysis.spectra import power_spectrum_raw
    from meanfield.kernels.cuda import to_host
    from meanfield.kernels.cuda_reductions import autocorrelations, device_tails, power_spectra
    rng = np.random.default_rng(1)
    rec = rng.normal(size=(3, 100, 2))
    rec[2, :, 1] = 0.25                                 # constant: NaN autocorrelation, no exception
    tails = device_tails(on_device(rec), 0, 64)         # (n, M, 64)
    np.testing.assert_array_equal(to_host(tails), np.moveaxis(rec[:, -64:], 1, 2))
    freqs, power = (to_host(a) for a in power_spectra(tails))      # CuPy arrays on a GPU
    acf = to_host(autocorrelations(tails, max_lag=20))
    for i in range(3):
        for a in range(2):
            f, p = power_spectrum_raw(rec[i, -64:, a])
            np.testing.assert_allclose(freqs, f, rtol=0, atol=1e-15)
            np.testing.assert_allclose(power[i, a], p, rtol=1e-12, atol=1e-12)
            if (i, a) == (2, 1):
                assert np.all(np.isnan(acf[i, a]))
            else:
                np.testing.assert_allclose(acf[i, a], autocorrelation(rec[i, -64:, a], 20), rtol=0, atol=1e-12)
