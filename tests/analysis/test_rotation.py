"""Rotation numbers of invariant circles (meanfield/analysis/rotation.py, docs/classification.md §4): the circle
map's rigid rotations and devil's staircase against its lift, a forced series, and the paper model's torus
against the Neimark–Sacker multiplier it grows from."""
from fractions import Fraction

import numpy as np
import pytest

from meanfield.analysis.rotation import Rotation, rotation_number
from meanfield.errors import AnalysisError


def circle_lift(omega: float, k: float, n: int, transient: int = 2000, theta: float = 0.1) -> np.ndarray:
    """The lift θ_{t+1} = θ_t + Ω − (K/2π) sin 2πθ_t of the standard circle map, n values after a transient."""
    out = np.empty(n + transient)
    for t in range(n + transient):
        out[t] = theta
        theta = theta + omega - k / (2 * np.pi) * np.sin(2 * np.pi * theta)
    return out[transient:]


def on_circle(lift: np.ndarray) -> np.ndarray:
    return np.stack([np.cos(2 * np.pi * lift), np.sin(2 * np.pi * lift)], axis=1)


def folded(turns: float) -> float:
    return min(turns % 1, 1 - turns % 1)


@pytest.mark.parametrize("omega", [(np.sqrt(5) - 1) / 2, np.sqrt(2) - 1, np.e - 2, 0.1 * np.pi, 0.77 * np.sqrt(3)])
def test_a_rigid_rotation_turns_by_its_angle(omega):
    # K = 0: θ → θ + Ω, rotation number Ω exactly (folded to [0, 1/2]); the weighted Birkhoff average of 4 096
    # points reaches rounding (measured ≤ 2e-13)
    r = rotation_number(on_circle(circle_lift(omega, 0.0, 4096)))
    assert r.locked is None and r.number == pytest.approx(folded(omega), abs=1e-10) and r.stderr < 1e-10


@pytest.fixture(scope="module")
def staircase():
    """The circle map at K = 0.95 for Ω on a grid over [0, 1/2] (step 2.5e-4), all at once: the lift's last 1 000
    of 6 000 steps per Ω."""
    omega = np.arange(0, 0.5 + 1e-12, 2.5e-4)
    theta = np.full(omega.size, 0.1)
    tail = np.empty((1000, omega.size))
    for t in range(6000):
        if t >= 5000:
            tail[t - 5000] = theta
        theta = theta + omega - 0.95 / (2 * np.pi) * np.sin(2 * np.pi * theta)
    return omega, tail


@pytest.mark.parametrize("p, q", [(0, 1), (1, 5), (1, 4), (1, 3), (2, 5), (1, 2), (3, 7)])
def test_devils_staircase_plateaus_are_reported_as_their_fractions(staircase, p, q):
    # K = 0.95: the Ω in the middle of the plateau p/q, found with the lift alone (its orbit comes back p turns
    # later after q steps, to 1e-10), is reported locked at p/q (folded)
    omega, tail = staircase
    on_plateau = np.flatnonzero(np.abs(tail[q:] - tail[:-q] - p).max(axis=0) < 1e-10)
    assert on_plateau.size >= 3, "the plateau is narrower than the grid"
    middle = omega[on_plateau[on_plateau.size // 2]]
    expected = min(Fraction(p, q), 1 - Fraction(p, q))
    assert rotation_number(on_circle(circle_lift(middle, 0.95, 4000))) == Rotation(
        float(expected), 0.0, (expected.numerator, expected.denominator), 4000)


@pytest.mark.parametrize("omega, k", [(0.3, 0.5), (0.7, 0.5), (0.62, 0.8)])
def test_a_quasi_periodic_circle_map_agrees_with_its_lift(omega, k):
    # for a circle homeomorphism |(θ_N − θ_0)/N − ρ| ≤ 1/N (the lift's classical bound): N = 2e5
    n = 200_000
    lift = circle_lift(omega, k, n + 1)
    r = rotation_number(on_circle(lift[-8192:]))
    assert r.locked is None
    assert abs(r.number - folded((lift[-1] - lift[0]) / n)) <= 1.0 / n


def test_a_forced_series_turns_per_forcing_period():
    # samples x_{kq} = (0.3 + cos 2πρk, sin 2πρk): the stroboscopic points of period q = 4 turn by ρ about
    # their mean; the samples in between follow the forcing
    rho, q = np.sqrt(2) - 1, 4
    t = np.arange(4 * 2048)
    x = np.stack([0.3 * np.cos(2 * np.pi * t / q) + np.cos(2 * np.pi * rho * t / q),
                  np.sin(2 * np.pi * rho * t / q) + 0.1 * np.sin(2 * np.pi * t / q) ** 2], axis=1)
    assert rotation_number(x, forcing_period=q).number == pytest.approx(folded(rho), abs=1e-10)
    assert rotation_number(x).number == pytest.approx(folded(rho / q), abs=1e-6)     # per sample: a q-th of it


def test_the_paper_models_torus_starts_at_the_critical_multipliers_angle():
    # past the rest cycle's Neimark–Sacker point the torus turns at ρ(β), which tends to arg μ / 2π of the
    # critical multiplier (Newton on the L-step map, meanfield.studies.onset) at the point: the line through ρ
    # at two β past it, extrapolated there, meets it; measured 2.9e-6 apart, the line's curvature error ≈ 3e-6
    import meanfield as mf
    from meanfield.studies.onset import rest_stability
    onset = rest_stability(mf.presets.paper(), (1.0, 1.3))
    assert onset.kind == "neimark_sacker"
    betas = onset.onset + np.array([5e-4, 1.5e-3])
    rho = [rotation_number(mf.simulate(mf.presets.paper(beta_o=b), 300_000, 200_000)) for b in betas]
    assert all(r.locked is None and r.stderr < 1e-9 for r in rho)
    at_point = rho[0].number - (rho[1].number - rho[0].number) / (betas[1] - betas[0]) * (betas[0] - onset.onset)
    assert at_point == pytest.approx(onset.rotation_number, abs=2e-5)


def test_the_standard_error_is_the_spread_of_a_noisy_rotation():
    # θ_{k+1} = θ_k + ρ + σ ξ_k (ξ standard normal, σ = 0.01 turns): the angle steps are independent, and a
    # weighted Birkhoff average of N of them, weights w_i of the bump g(s) = exp(−1/(s(1 − s))), has the standard
    # deviation σ √(Σ w_i²) ≈ σ √(c/N), c = ∫g² / (∫g)² (by quadrature here), the same for the full series and
    # for the mean of its blocks. Over 400 such orbits of 1 024 points: the reported standard error (root mean
    # square) is that within 6 % (the block estimate of the variance has 7 degrees of freedom: a relative
    # sampling error √(2/7)/2/√400 ≈ 1.3 % of the standard error), and the spread of the reported ρ within
    # 15 % (1/√(2 · 400) ≈ 3.5 %); a standard error 12 % too large or too small fails the first.
    from scipy.integrate import quad
    def bump(s):
        return np.exp(-1 / (s * (1 - s)))
    c = quad(lambda s: bump(s) ** 2, 0, 1)[0] / quad(bump, 0, 1)[0] ** 2
    rho, sigma, n = 0.3, 0.01, 1024
    rng = np.random.default_rng(5)
    found = [rotation_number(on_circle(np.cumsum(rho + sigma * rng.standard_normal(n)))) for _ in range(400)]
    expected = sigma * np.sqrt(c / (n - 1))                                        # n − 1 angle steps
    assert all(r.locked is None for r in found)
    assert np.sqrt(np.mean([r.stderr**2 for r in found])) == pytest.approx(expected, rel=0.06)
    assert np.std([r.number for r in found], ddof=1) == pytest.approx(expected, rel=0.15)
    assert np.mean([r.number for r in found]) == pytest.approx(rho, abs=4 * expected / np.sqrt(400))


@pytest.mark.parametrize("x, kw, words", [
    (np.zeros((100, 2)), {}, "at least"),
    (np.random.default_rng(0).normal(size=(400, 2)), {"forcing_period": 0}, "forcing_period"),
    (np.stack([np.arange(400.0), 2 * np.arange(400.0)], 1), {}, "on a line"),
])
def test_bad_input_is_refused(x, kw, words):
    with pytest.raises(AnalysisError, match=words):
        rotation_number(x, **kw)


@pytest.mark.parametrize("p, q", [(1, 3), (1, 4), (2, 5), (3, 7)])
def test_a_locked_cycle_of_the_circle_map_turns_in_order_by_its_fraction(staircase, p, q):
    # the cycle's q points on the circle, in orbit order, from the middle of the plateau p/q (found with the lift)
    from meanfield.analysis.rotation import locked_rotation
    omega, tail = staircase
    on_plateau = np.flatnonzero(np.abs(tail[q:] - tail[:-q] - p).max(axis=0) < 1e-10)
    cycle = on_circle(tail[-q:, on_plateau[on_plateau.size // 2]])
    expected = min(Fraction(p, q), 1 - Fraction(p, q))
    assert locked_rotation(cycle) == (expected.numerator, expected.denominator)
    # seen through a change of coordinates whose two leading axes still show a simple closed curve (an ellipse off
    # the origin, a small third feature), the same
    squeezed = np.column_stack([3 + 2 * cycle[:, 0], 0.5 * cycle[:, 1] + 0.1 * cycle[:, 0], 0.1 * cycle[:, 0] ** 2])
    assert locked_rotation(squeezed) == (expected.numerator, expected.denominator)


def test_a_cycle_that_jumps_about_its_circle_is_not_locked():
    from meanfield.analysis.rotation import locked_rotation
    quarter = 2 * np.pi / 4
    jumping = np.stack([np.cos(quarter * np.array([0, 2, 1, 3])), np.sin(quarter * np.array([0, 2, 1, 3]))], 1)
    assert locked_rotation(jumping) is None                   # moves 2, 3, 2, 1 places: no rotation
    assert locked_rotation(jumping[:2]) is None               # two points: no circle to turn on
    assert locked_rotation(np.outer(np.arange(5.0), [1.0, 2.0])) is None        # on a line


@pytest.mark.parametrize("beta_o, locked", [(1.2502562, (1, 4)), (1.27, (2, 7)), (2.8, None)])
def test_the_classifier_reports_a_locked_cycles_rotation(beta_o, locked):
    # inside the 1:4 tongue and on the period-28 window's cycle the classifier's frequency1 is p/k per L = 4 steps,
    # as rotation_number's angle average of the same run says; the four period-24 cycles at β_o = 2.8 are not
    # rotation-ordered (no invariant circle): no frequency
    import meanfield as mf
    from meanfield.analysis import classify
    run = mf.simulate(mf.presets.paper(beta_o=beta_o), 300_000, 200_000, record=("mo_se", "att"))
    result = classify(run)
    assert result.label == "periodic"
    if locked is None:
        assert result.evidence["frequency1"] is None
    else:
        assert result.evidence["frequency1"] * 4 == locked[0] / locked[1]
        assert rotation_number(run).locked == locked
