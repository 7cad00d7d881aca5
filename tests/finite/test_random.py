"""Random streams: one per (seed, replica), independent of batch, chunking and threads (finite_kernel docstring)."""
import numba
import numpy as np
import pytest

from meanfield.finite import simulate_finite, simulate_finite_batch

SAMPLERS = ["binomial", "bits"]


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_same_seed_same_output(paper, sampler):
    a = simulate_finite(paper, 990, 20, 3, seed=11, sampler=sampler)
    b = simulate_finite(paper, 990, 20, 3, seed=11, sampler=sampler)
    for name, series in a.replica.items():
        np.testing.assert_array_equal(series, b.replica[name])


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_replicas_do_not_depend_on_batch_size_or_threads(paper, sampler):
    """Replica r is the same whether run among 2 or 5 replicas, with 1 thread or all of them."""
    few = simulate_finite(paper, 990, 20, 2, seed=7, sampler=sampler)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        many = simulate_finite(paper, 990, 20, 5, seed=7, sampler=sampler)
    finally:
        numba.set_num_threads(threads)
    for name, series in few.replica.items():
        np.testing.assert_array_equal(series, many.replica[name][:2])


def test_points_do_not_depend_on_batch_composition(paper):
    betas = np.array([1.0, 1.26405, 2.0])
    whole = simulate_finite_batch(paper, 990, 15, 3, parameters={"beta_o": betas}, seed=2)
    part = simulate_finite_batch(paper, 990, 15, 3, parameters={"beta_o": betas[2:0:-1]}, seed=2)
    np.testing.assert_array_equal(whole.replica["mo"][1:], part.replica["mo"][::-1])


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_replicas_and_seeds_differ(paper, sampler):
    traj = simulate_finite(paper, 990, 12, 4, seed=3, sampler=sampler)
    other = simulate_finite(paper, 990, 12, 4, seed=4, sampler=sampler)
    sampled = traj.replica["mo_se"][:, 1:]
    for r in range(4):
        for s in range(r):
            assert not np.array_equal(sampled[r], sampled[s])
        assert not np.array_equal(sampled[r], other.replica["mo_se"][r, 1:])
