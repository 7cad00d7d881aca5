"""The tools at M = 64 (a model of 128 weight columns: K = 128 sign classes of 2^63, docs/model.md §1.1): run,
classification, census, periodic orbit and its Neimark–Sacker point, that point's curve in two parameters, a run
file's chunk, the command line and the finite-N network, each checked against a direct computation.

Slow: the kernels of the 64-feature shape (plain, tangent, Jacobian) compile for about a minute on a cold cache.
"""
import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis import classify

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model():
    return mf.presets.random(seed=5, n_features=64, semantic_bits=128, pe_bits=2, context=4, beta_o=0.3)


@pytest.fixture(scope="module")
def start(model):
    rng = np.random.default_rng(0)
    return mf.State(att=rng.uniform(-1, 1, (4, 64)), pe=rng.choice([-1.0, 1.0], (4, 2)))


def test_a_stable_cycle_is_found_by_every_tool(model, start):
    run = mf.simulate(model, 3000, 1000, start=start, lyapunov=4, compute=mf.Compute(progress=False))
    label = classify(run)
    assert label.label == "fixed_point" and label.period == model.forcing_period()
    assert np.all(run.lyapunov < -0.1)                                # 4 of the 256 exponents, all contracting
    orbit = mf.periodic_orbit(model, run.final_state, period=4)
    assert orbit.stable and np.max(np.abs(orbit.multipliers)) < 1
    # the orbit is where the run went: the run's last window (λ1 ≈ -0.59 per step over 2000 steps: converged to
    # rounding) is one of Newton's points
    window = run.final_state.att.ravel()
    assert min(np.max(np.abs(point - window)) for point in orbit.points) < 1e-10
    census = mf.find_attractors(model, 8, 2000, 1000)
    assert len(census.attractors) == 1 and census.attractors[0].fraction == 1.0


@pytest.fixture(scope="module")
def ns_point(model, start):
    """The rest cycle's first Neimark–Sacker point along β_o from 2.3, with the run it was located from."""
    at = model.replace(beta_o=2.3)
    run = mf.simulate(at, 3000, 2000, start=start, compute=mf.Compute(progress=False))
    return at, run, mf.bifurcations(at, "beta_o", (2.3, 2.6), state=run.final_state)


def test_the_neimark_sacker_point_is_where_the_multipliers_leave_the_circle(model, ns_point):
    _, run, located = ns_point
    assert located and located[0].kind == "neimark_sacker"      # the first of the rest cycle's (a second pair follows)
    value = located[0].value
    # Newton's cycle on either side, from the run's state: max|μ| < 1 just below, > 1 just above (1e-3 apart in β_o
    # moves max|μ| by ~1e-3·d|μ|/dβ_o, far above Newton's 1e-10 and the location's resolution)
    moduli = [np.max(np.abs(mf.periodic_orbit(model.replace(beta_o=value + shift), run.final_state,
                                              period=4).multipliers)) for shift in (-1e-3, 1e-3)]
    assert moduli[0] < 1 < moduli[1]


def test_the_neimark_sacker_curve_in_two_parameters(model, ns_point):
    """The point continued in β_att (a 1 025-unknown extended system): the curve passes the located point, keeps a
    unit pair at every point, and its far end is a Neimark–Sacker point of the cycle found afresh by Newton there
    (max|μ| < 1 at β_o − 1e-4, > 1 at β_o + 1e-4; the curve's points hold to Newton's 1e-10, far finer)."""
    at, run, located = ns_point
    point = located[0]
    curve = mf.bifurcation_curve(at, point, "beta_att", (2.18, 2.22), state=run.final_state, max_points=2)
    assert curve.kind == "neimark_sacker" and len(curve.values) == 5
    at_start = np.argmin(np.abs(curve.values[:, 1] - at.beta_att))
    assert abs(curve.values[at_start, 0] - point.value) <= 1e-9
    assert np.allclose(np.abs(curve.multipliers).max(axis=1), 1.0, atol=1e-8)
    beta_o, beta_att = curve.values[-1]
    assert beta_att > at.beta_att and beta_o != point.value
    far = model.replace(beta_att=beta_att)
    moduli = [np.max(np.abs(mf.periodic_orbit(far.replace(beta_o=beta_o + shift), run.final_state,
                                              period=4).multipliers)) for shift in (-1e-4, 1e-4)]
    assert moduli[0] < 1 < moduli[1]


def test_the_finite_network_of_64_features_converges_to_the_mean_field(model):
    """The network of the model's 128 columns, each repeated N_se/128 times (docs/model.md §6.1), at β_o = 0.3: its
    error to the aligned mean field over 10 steps falls like N^(-1/2) from N_se = 1 280 to 128 000 (fitted log-log
    slope within ±0.1 of -1/2 with 20 replicas; measured -0.50)."""
    from meanfield.finite import simulate_finite
    sizes = np.array([1280, 12800, 128000])
    errors = [simulate_finite(model, n, model.context + 11, mf.Replicas(20, seed=1)).aligned_error("mo_se", 10).mean()
              for n in sizes]
    slope = np.polyfit(np.log(sizes), np.log(errors), 1)[0]
    assert -0.6 <= slope <= -0.4


RUN = """
name = "m64"
steps = 400
transient = 200
lyapunov = false
chunk = 2
[model]
preset = "random"
seed = 5
n_features = 64
semantic_bits = 128
pe_bits = 2
context = 4
[start]
kind = "token"
[grid]
beta_o = [0.3, 2.6]
[record]
observables = ["mo_se"]
tail = 50
"""


def test_a_run_file_sweep_of_64_features_equals_the_batch_api(model, tmp_path):
    """A run file's chunk (token start, two β_o) stores what mf.simulate_batch computes from the same start."""
    from meanfield.simulation import simulate_batch
    from meanfield.sweeps.execute.tasks import compute_chunk
    run = mf.load_run(RUN)
    chunk = compute_chunk(run, np.arange(2), np.full(2, -1))
    start = mf.State.from_pattern(model, 0, "o", True)
    direct = simulate_batch(model, 400, 200, parameters={"beta_o": np.array([0.3, 2.6])}, start=start,
                            record=("mo_se",), compute=mf.Compute(progress=False))
    np.testing.assert_array_equal(chunk["final_att"], direct.final_att)


@pytest.mark.integration
def test_the_command_line_simulates_64_features(model, tmp_path):
    """`meanfield simulate` of the random preset at M = 64 stores what mf.simulate computes (after the transient)."""
    from meanfield.cli import main
    out = tmp_path / "m64.h5"
    assert main(["simulate", "--preset", "random", "--set", "n_features=64", "--set", "semantic_bits=128",
                 "--set", "seed=5", "--start", "token", "--beta", "0.3", "--steps", "300", "--transient", "100",
                 "-o", str(out), "-q"]) == 0
    import h5py
    start = mf.State.from_pattern(model, 0, "o", True)
    direct = mf.simulate(model.replace(beta_o=0.3), 300, 100, start=start, compute=mf.Compute(progress=False))
    with h5py.File(out) as f:
        np.testing.assert_array_equal(f["att"][()], direct.att)
