"""Random streams: one per (seed, replica), independent of batch, chunking and threads (finite_kernel docstring)."""
import numba
import numpy as np
import pytest

from meanfield.finite import Replicas, simulate_finite, simulate_finite_batch

SAMPLERS = ["binomial", "bits"]


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_same_seed_same_output(paper, sampler):
    a = simulate_finite(paper, 990, 20, Replicas(3, sampler=sampler, seed=11))
    b = simulate_finite(paper, 990, 20, Replicas(3, sampler=sampler, seed=11))
    for name, series in a.replica.items():
        np.testing.assert_array_equal(series, b.replica[name])


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_replicas_do_not_depend_on_batch_size_or_threads(paper, sampler):
    """Replica r is the same whether run among 2 or 5 replicas, with 1 thread or all of them."""
    few = simulate_finite(paper, 990, 20, Replicas(2, sampler=sampler, seed=7))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        many = simulate_finite(paper, 990, 20, Replicas(5, sampler=sampler, seed=7))
    finally:
        numba.set_num_threads(threads)
    for name, series in few.replica.items():
        np.testing.assert_array_equal(series, many.replica[name][:2])


def test_points_do_not_depend_on_batch_composition(paper):
    betas = np.array([1.0, 1.26405, 2.0])
    whole = simulate_finite_batch(paper, 990, 15, Replicas(3, seed=2), parameters={"beta_o": betas})
    part = simulate_finite_batch(paper, 990, 15, Replicas(3, seed=2), parameters={"beta_o": betas[2:0:-1]})
    np.testing.assert_array_equal(whole.replica["mo"][1:], part.replica["mo"][::-1])


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_replicas_and_seeds_differ(paper, sampler):
    traj = simulate_finite(paper, 990, 12, Replicas(4, sampler=sampler, seed=3))
    other = simulate_finite(paper, 990, 12, Replicas(4, sampler=sampler, seed=4))
    sampled = traj.replica["mo_se"][:, 1:]
    for r in range(4):
        for s in range(r):
            assert not np.array_equal(sampled[r], sampled[s])
        assert not np.array_equal(sampled[r], other.replica["mo_se"][r, 1:])
