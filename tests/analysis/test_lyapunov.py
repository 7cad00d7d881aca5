"""Lyapunov spectra of textbook maps (Benettin et al. 1980; docs/model.md §4.2)."""

import numba as nb
import numpy as np
import pytest

from meanfield.analysis import lyapunov_spectrum
from meanfield.errors import AnalysisError


def test_logistic_r4_is_ln2(maps):
    res = lyapunov_spectrum(*maps.logistic, [0.3], 10**6, transient=1000, params=[4.0])
    # r = 4 is conjugate to the doubling map: the sum of ln|f'| telescopes, so the error is O(1/N) ~ 1e-6;
    # 1e-3 is the requirement
    assert abs(res.exponents[0] - np.log(2)) < 1e-3
    assert res.running.shape == (1000, 1) and res.running_steps[-1] == 10**6
    assert res.running[-1, 0] == pytest.approx(res.exponents[0], rel=1e-12)


@pytest.mark.parametrize("r", [2.8, 3.5, 3.83])
def test_logistic_regular_windows_match_orbit_formula(maps, r):
    res = lyapunov_spectrum(*maps.logistic, [0.3], 12000, transient=3000, params=[r])
    cycle = maps.orbit(maps.logistic[0], [r], [0.3], 12000, transient=3000)[:, 0]
    # exact value on the attracting cycle: mean of ln|r (1 - 2 x)| over the orbit (12000 = multiple of 1,3,4)
    assert res.exponents[0] == pytest.approx(np.mean(np.log(np.abs(r * (1 - 2 * cycle)))), abs=1e-9)
    assert res.exponents[0] < 0
    if r == 2.8:
        assert res.exponents[0] == pytest.approx(np.log(0.8), abs=1e-12)  # f'(x*) = 2 - r at x* = 1 - 1/r


def test_henon_published_values(maps):
    res = lyapunov_spectrum(*maps.henon, [0.1, 0.1], 10**6, transient=1000, params=[1.4, 0.3])
    # published lambda1 = 0.41922 (Sprott, Chaos and Time-Series Analysis, 2003); block standard error at
    # 1e6 steps is ~4e-4, so 2e-3 is 5 standard errors
    assert res.exponents[0] == pytest.approx(0.41922, abs=2e-3)
    assert res.stderr[0] < 1e-3
    # |det J| = b at every step, so the sum of the exponents is ln b up to rounding (property)
    assert res.exponents.sum() == pytest.approx(np.log(0.3), abs=1e-10)
    assert res.exponents[0] > res.exponents[1]


def test_generalised_henon_is_hyperchaotic(maps):
    res = lyapunov_spectrum(*maps.henon3, [0.0, 0.0, 0.0], 300000, transient=1000, params=[1.76, 0.1])
    # Baier & Klein (1990): two positive exponents; |det J| = b = 0.1 at every step
    assert np.all(res.exponents[:2] > 10 * res.stderr[:2])
    assert res.exponents[2] < 0
    assert res.exponents.sum() == pytest.approx(np.log(0.1), abs=1e-10)
    assert np.all(np.diff(res.exponents) <= 0)


def test_k_leading_exponents_and_params_reuse(maps):
    full = lyapunov_spectrum(*maps.henon, [0.1, 0.1], 20000, params=[1.4, 0.3])
    lead = lyapunov_spectrum(*maps.henon, [0.1, 0.1], 20000, k=1, params=[1.4, 0.3])
    # Gram-Schmidt: the first vector evolves identically whether or not the second is carried
    assert lead.exponents[0] == pytest.approx(full.exponents[0], abs=1e-12)
    assert lead.exponents.shape == lead.stderr.shape == (1,)


def test_stderr_shrinks_with_length(maps):
    short = lyapunov_spectrum(*maps.logistic, [0.3], 10**4, params=[3.9])
    long = lyapunov_spectrum(*maps.logistic, [0.3], 10**6, params=[3.9])
    assert long.stderr[0] < short.stderr[0] / 3  # ~1/sqrt(N): a factor 10 expected


def test_the_standard_error_is_the_spread_over_starts(maps):
    # the Hénon map's leading exponent from 1 000 starts near the origin, 10 000 steps each (20 blocks of 500,
    # much longer than the map's correlation time): the reported block standard error (root mean square over the
    # starts) is the standard deviation of the estimates over the starts within 8 % (that standard deviation's
    # own relative sampling error is 1/√(2 · 999) ≈ 2.2 %, the root mean square's ≈ √(2/19)/2/√1000 ≈ 0.5 %);
    # a standard error 12 % too large or too small fails
    rng = np.random.default_rng(3)
    found = [lyapunov_spectrum(*maps.henon, rng.uniform(-0.1, 0.1, 2), 10_000, transient=1000, k=1,
                               params=[1.4, 0.3]) for _ in range(1000)]
    lam = np.array([r.exponents[0] for r in found])
    stderr = np.array([r.stderr[0] for r in found])
    assert np.sqrt(np.mean(stderr**2)) == pytest.approx(lam.std(ddof=1), rel=0.08)


@nb.njit(cache=True)
def _blowup_step(x, p, out):
    out[0] = x[0] * x[0] * 1e10


@nb.njit(cache=True)
def _zero_jacobian(x, p, out):
    out[0, 0] = 0.0


def test_divergent_orbit_and_singular_jacobian_raise(maps):
    with pytest.raises(AnalysisError, match="NaN or infinite"):
        lyapunov_spectrum(_blowup_step, maps.logistic[1], [2.0], 1000, params=[1.0])
    with pytest.raises(AnalysisError, match="NaN or infinite"):
        lyapunov_spectrum(_blowup_step, maps.logistic[1], [2.0], 1000, transient=100, params=[1.0])
    with pytest.raises(AnalysisError, match="collapsed"):
        lyapunov_spectrum(maps.logistic[0], _zero_jacobian, [0.3], 1000, params=[3.0])


@pytest.mark.parametrize(
    "x0, kw",
    [([], {}), ([np.nan], {}), ([0.3], {"k": 2}), ([0.3], {"k": 0}), ([0.3], {"n_blocks": 1}),
     ([0.3], {"n_steps": 5}), ([0.3], {"transient": -1}),
     ([0.3], {"params": [np.nan]})],
)
def test_bad_input_raises(maps, x0, kw):
    args = {"n_steps": 100, "params": [3.0]} | kw
    with pytest.raises(AnalysisError):
        lyapunov_spectrum(*maps.logistic, x0, **args)


@nb.njit(cache=True)
def _two_argument_step(x, out):
    out[0] = x[0]


def test_python_functions_and_wrong_signatures_rejected(maps):
    with pytest.raises(AnalysisError, match="njit"):
        lyapunov_spectrum(lambda x, p, o: None, maps.logistic[1], [0.3], 100)
    with pytest.raises(AnalysisError, match="signature|compile"):
        lyapunov_spectrum(_two_argument_step, maps.logistic[1], [0.3], 100)
