"""The reference's weights and correlations for every mode, against an independent transcription of its draw
order (docs/model.md §1.2) written with NumPy's global legacy generator as the reference
calls it, and the coefficient tables against a column-by-column average."""
import itertools

import numpy as np
import pytest

from meanfield.errors import ConfigError
from meanfield.model import weights as W
from meanfield.model.reference_weights import CORRELATIONS, reference_construction

from .helpers import brute_force_tables, pm1, transcription

SEEDS = (0, 1, 7, 2024)
FEATURE_COUNTS = (1, 2, 3)
PE_BITS = (1, 2, 3, 5)
SEMANTIC_BITS = (99, 100, 101)
SEGMENTS = (1, 2, 3, 4, 7)


def assert_same(got, want, where):
    mats, pair, quad = got
    for a in "ovqk":
        assert mats[a].dtype.kind == "i", where
        assert np.array_equal(mats[a], want[0][a]), f"W^{a} differs for {where}"
        assert np.array_equal(pair[a], want[1][a]), f"pair C^{a} differs for {where}"
        if want[2] is None:
            assert quad is None, where
        else:
            assert np.array_equal(quad[a], want[2][a]), f"quad Q^{a} differs for {where}"


@pytest.mark.parametrize("pe_mode, reorder", [(0, False), (1, False), (0, True), (1, True)])
def test_segment_mode_equals_transcription(pe_mode, reorder):
    for seed, M, P, N, segments in itertools.product(SEEDS[:2], FEATURE_COUNTS, PE_BITS, SEMANTIC_BITS, SEGMENTS):
        where = dict(seed=seed, M=M, P=P, N=N, segments=segments, pe_mode=pe_mode, reorder=reorder)
        got = reference_construction(seed, M, N, P, "segments", segments=segments, pe_mode=pe_mode,
                                     reorder_weights=reorder)
        assert_same(got, transcription(seed, M, N, P, 3, segments, pe_mode=pe_mode, reorder=reorder), where)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("pe_mode, reorder", [(0, False), (1, False), (0, True)])
def test_other_modes_equal_transcription(mode, pe_mode, reorder):
    for seed, M, P, N in itertools.product(SEEDS, FEATURE_COUNTS, PE_BITS, SEMANTIC_BITS):
        for scale in ((0.5, 0.01) if mode == 0 else (0.5,)):
            where = dict(mode=mode, seed=seed, M=M, P=P, N=N, scale=scale, pe_mode=pe_mode, reorder=reorder)
            got = reference_construction(seed, M, N, P, CORRELATIONS[mode], gaussian_scale=scale, pe_mode=pe_mode,
                                         reorder_weights=reorder)
            assert_same(got, transcription(seed, M, N, P, mode, scale=scale, pe_mode=pe_mode, reorder=reorder),
                        where)


def test_paper_seed_equals_reference_fixture(data):
    ref = data("weights_seed1.npz")
    mats, pair, quad = reference_construction(1, 3, 99, 2, "segments", segments=3)
    for a in "ovqk":
        np.testing.assert_array_equal(mats[a], ref[f"W{a}"])
        np.testing.assert_array_equal(np.vstack([pair[a], quad[a]]), ref[f"even_corr_{a}"])


@pytest.mark.parametrize("N, segments, gaps", [(99, 4, (48, 73, 98)), (100, 3, (99,)), (99, 3, ())])
def test_non_integer_segments_keep_raw_bits_between_segments(N, segments, gaps):
    # docs/model.md: segment s covers [int(s g), int(int(s g) + g)); the columns in between keep the raw draw
    M, P, seed = 3, 2, 1
    mats, _, _ = reference_construction(seed, M, N, P, "segments", segments=segments)
    np.random.seed(seed)
    pm1((M, N))
    raw = {a: pm1((M, N)) for a in "ovqk"}
    g = N / segments
    written = sorted({c for s in range(segments) for c in range(int(s * g), int(int(s * g) + g))})
    assert sorted(set(range(N)) - set(written)) == list(gaps)
    for a in "ovqk":
        np.testing.assert_array_equal(mats[a][:, list(gaps)], raw[a][:, list(gaps)])
        for s in range(segments):                         # each written segment is constant
            block = mats[a][:, int(s * g):int(int(s * g) + g)]
            assert np.all(block == block[:, :1])


def test_contiguous_segment_rule_would_differ():
    # the test above can fail: filling [int(s g), int((s+1) g)) instead overwrites the gap columns
    mats, _, _ = reference_construction(1, 3, 99, 2, "segments", segments=4)
    g = 99 / 4
    contiguous = {a: m.copy() for a, m in mats.items()}
    for a in "ovqk":
        for s in range(4):
            contiguous[a][:, int(s * g):int((s + 1) * g)] = mats[a][:, int(s * g):int(s * g) + 1]
    assert any(not np.array_equal(contiguous[a], mats[a]) for a in "ovqk")


@pytest.mark.parametrize("mode", ["weights", "segments"])
def test_tables_from_reference_weights_equal_column_average(mode):
    for seed, M, P, N, segments, pe_mode, reorder in itertools.product(
            SEEDS[:2], FEATURE_COUNTS, (2, 5), SEMANTIC_BITS, (3, 4, 7), (0, 1), (False, True)):
        if mode == "weights" and segments != 3:
            continue
        mats, pair, quad = reference_construction(seed, M, N, P, mode, segments=segments, pe_mode=pe_mode,
                                                  reorder_weights=reorder)
        tables = W.coefficients_from_correlations(pair, quad)
        brute = brute_force_tables(mats, N)
        for a in "ovqk":
            # K = S·E sums at most 4 terms k/N_se of size <= 1: rounding <= 4 ulp(1) / 2^(M-1) < 1e-15
            np.testing.assert_allclose(tables[a], brute[a], rtol=0, atol=1e-15,
                                       err_msg=f"{mode} seed={seed} M={M} N={N} segments={segments}")


@pytest.mark.parametrize("M", [1, 2, 3])
def test_manual_orders_tables_for_every_m(M):
    # docs/model.md: K^α[j, a] = S[j, order_α[a]], order_v = roll(identity, -1), c = K / 2^(M-1)
    signs = W.sign_patterns(M)
    order_v = [(a + 1) % M for a in range(M)]
    tables = W.manual_orders(M)
    for a in "oqk":
        np.testing.assert_array_equal(tables[a] * 2 ** (M - 1), signs)
    np.testing.assert_array_equal(tables["v"] * 2 ** (M - 1), signs[:, order_v])


@pytest.mark.parametrize("knobs, key", [
    (dict(n_features=4), "n_features"), (dict(n_features=0), "n_features"), (dict(segments=100), "segments"),
    (dict(segments=0), "segments"), (dict(pe_bits=0), "pe_bits"), (dict(semantic_bits=1, pe_bits=2), "semantic_bits"),
    (dict(pe_mode=2), "pe_mode"), (dict(correlations="random"), "correlations"), (dict(seed=-1), "seed"),
    (dict(seed=2 ** 32), "seed"), (dict(seed=1.5), "seed"), (dict(reorder_weights=1), "reorder_weights"),
    (dict(correlations="gaussian", gaussian_scale=-1.0), "gaussian_scale"),
    (dict(correlations="manual_orders"), "manual_orders")])
def test_bad_knobs_name_the_key(knobs, key):
    args = dict(seed=1, n_features=3, semantic_bits=99, pe_bits=2, correlations="segments") | knobs
    with pytest.raises(ConfigError, match=key):
        reference_construction(**args)
