"""Regular orbits and their tori (docs/classification.md §3-§4): weighted Birkhoff averages, line frequencies,
torus generators, rationality and the section's closed curve."""

import numpy as np
import pytest

from meanfield.analysis import weighted_birkhoff_average
from meanfield.analysis.regularity import birkhoff_drift
from meanfield.analysis.tori import line_frequencies, rational_period, section_curve_spread, torus_generators
from meanfield.errors import AnalysisError

from .textbook import GOLDEN, SILVER, omega_for_rotation

T = np.arange(16_384)


def test_weighted_birkhoff_average_super_converges_on_a_rotation():
    # cos(2 pi t rho) averages to 0; the C-infinity bump weight makes the error fall faster than any power of N
    # (Das, Saiki, Sander & Yorke 2017), the plain mean only like 1/N
    x = np.cos(2 * np.pi * T[:4000] * GOLDEN)
    assert abs(weighted_birkhoff_average(x)) < 1e-13
    assert abs(np.mean(x)) > 1e-7


def test_birkhoff_drift_separates_regular_from_chaotic(maps):
    torus = np.column_stack([np.cos(2 * np.pi * T * GOLDEN), np.cos(2 * np.pi * T * SILVER)])
    chaos = maps.orbit(maps.logistic[0], [4.0], [0.3], 16_384, transient=100)
    # tori: ~1e-15 (rounding); chaos: ~ 1/sqrt(N) ~ 1e-2 (docs/classification.md §3 quotes both ranges)
    assert birkhoff_drift(torus) < 1e-12
    assert birkhoff_drift(chaos) > 1e-4
    assert birkhoff_drift(np.ones((100, 2))) == 0.0


def test_line_frequencies_are_precise():
    x = np.cos(2 * np.pi * T * GOLDEN) + 0.6 * np.cos(2 * np.pi * T * SILVER) + 0.01 * np.cos(2 * np.pi * T * 0.1)
    freqs, amps = line_frequencies(x)
    # Blackman-Harris + parabolic interpolation: 1e-9 at 16384 samples is a tenth of what torus_generators needs
    assert freqs[:3] == pytest.approx([1 - GOLDEN, SILVER, 0.1], abs=1e-8)
    assert amps[:3] == pytest.approx([1.0, 0.6, 0.01], rel=1e-2)
    assert len(freqs) == 3  # no side-lobe lines (92 dB down)
    assert line_frequencies(np.ones(100))[0].size == 0


def test_generators_reduce_harmonics_and_combinations():
    g, s = 1 - GOLDEN, SILVER
    fold = (lambda f: min(f % 1, 1 - f % 1))  # lines are measured in [0, 1/2]
    # a harmonic met before its fundamental is replaced by it
    assert torus_generators([fold(2 * g), g, fold(3 * g)]) == pytest.approx([g])
    # combinations of two frequencies need two generators; the strongest lines stay generators
    assert torus_generators([g, fold(2 * s - g), s - g]) == pytest.approx([g, s - g])
    # the forcing frequency 1/4 and its combinations are known, frequencies are folded into [0, 1/8]
    f = 0.0659
    assert torus_generators([0.25, 0.25 - f, 0.5 - f, 0.25 + f], forcing_period=4) == pytest.approx([f])
    # more than max_dim generators: the list stops one beyond, so the caller can reject the torus
    assert len(torus_generators([0.11, np.sqrt(3) / 10, np.pi / 10, np.e / 10, 0.4123], max_dim=3)) == 4


def test_rational_generators_give_the_cycle_period():
    assert rational_period([66 / 475]) == 475
    assert rational_period([0.0625], forcing_period=4) == 16
    assert rational_period([1 - GOLDEN]) is None
    assert rational_period([1 / 3, 1 - GOLDEN]) is None


def test_section_points_of_a_torus_lie_on_a_closed_curve(maps):
    # invariant circle of the sine circle map at K = 0.5 (golden rotation): cells of the phase hold points of
    # the curve h(theta), spread ~ |h'| / cells << extent
    omega = omega_for_rotation(0.5, GOLDEN)
    theta = maps.orbit(maps.circle[0], [omega, 0.5], [0.1], 10_000, transient=1000)[:, 0]
    y = np.column_stack([np.cos(2 * np.pi * theta), np.sin(2 * np.pi * theta)])
    rho = line_frequencies(y[:, 0])[0][0]
    assert section_curve_spread(y, [rho]) < 0.05
    # a wrong frequency scatters the points over the whole curve
    assert section_curve_spread(y, [rho + 1e-3]) > 0.5
    # a chaotic orbit fills its attractor whatever the frequency
    chaos = maps.orbit(maps.henon[0], [1.4, 0.3], [0.1, 0.1], 10_000, transient=1000)
    assert section_curve_spread(chaos, [line_frequencies(chaos[:, 0])[0][0]]) > 0.5


def test_section_of_a_forced_torus_uses_the_stroboscopic_points():
    # a 2-torus made of the forcing (period 4) and an internal rotation: every 4th point lies on one curve
    t = np.arange(40_000)
    f = 0.0659
    y = np.column_stack([np.cos(2 * np.pi * t / 4) + 0.3 * np.cos(2 * np.pi * f * t),
                         np.sin(2 * np.pi * f * t) * (1 + 0.2 * np.cos(2 * np.pi * t / 4))])
    gens = torus_generators(line_frequencies(y[-16_384:, 0])[0], forcing_period=4)
    assert gens == pytest.approx([f], abs=1e-8)
    assert section_curve_spread(y, gens, forcing_period=4) < 0.05


def test_three_torus_sections():
    t = np.arange(50_000)[:, None]
    freqs = np.array([GOLDEN, SILVER, np.pi - 3])
    y = np.column_stack([np.cos(2 * np.pi * ((t * freqs) % 1)) @ [1, 0.6, 0.36], np.sin(2 * np.pi * t[:, 0] * GOLDEN)])
    gens = torus_generators(line_frequencies(y[-16_384:, 0])[0])
    assert len(gens) == 3
    assert section_curve_spread(y, gens) < 0.25  # cells of side ~1/17 per phase: |grad h| / 17 ~ 0.15


@pytest.mark.parametrize("call", [
    lambda: line_frequencies(np.ones(10)),
    lambda: line_frequencies(np.ones(100), n_lines=0),
    lambda: torus_generators([0.1], forcing_period=0),
    lambda: section_curve_spread(np.ones((100, 2)), []),
    lambda: birkhoff_drift(np.ones(3)),
])
def test_bad_input_raises(call):
    with pytest.raises(AnalysisError):
        call()
