"""The fixed-point branch and its stability events (meanfield/analysis/fixed_point_branch.py and
stability_events.py) on textbook maps whose answers are known in closed form: a fold, a symmetric pitchfork (a
branch point), an imperfect pitchfork (its crossover, closest approach and the saddle-node birth of the mirror
branch), a flip and a Neimark–Sacker point. Every located value within 1e-9 of the exact one, as docs/onset.md §2
promises."""
import numpy as np
import pytest

from meanfield.analysis.fixed_point_branch import FixedPointBranch
from meanfield.analysis.stability_events import mirror_birth, stability_along


def family_of(image, d_state, d_value):
    def family(x, value, derivatives=True):
        x = np.asarray(x, dtype=np.float64)
        if not derivatives:
            return image(x, value), None, None
        return image(x, value), d_state(x, value), d_value(x, value)
    return family


def followed(family, x0, start, end, max_step=0.05):
    branch = FixedPointBranch(family, len(x0), max_step=max_step)
    points, loss, crossover = stability_along(branch, branch.start(x0, start, 1.0), end)
    return branch, points, loss, crossover


def imperfect_pitchfork(eps):
    """x' = λx − x³ + ε: fixed points λ − 1 = x² − ε/x, multiplier μ = λ − 3x²."""
    return family_of(lambda x, lam: lam * x - x ** 3 + eps, lambda x, lam: np.array([[lam - 3 * x[0] ** 2]]),
                     lambda x, lam: x.copy())


def test_a_fold_is_the_turning_point_of_the_branch():
    # x' = x + (1 − λ) − x²: fixed points ±√(1 − λ), the stable one (μ = 1 − 2x) meets the other at λ = 1
    family = family_of(lambda x, lam: x + (1 - lam) - x ** 2, lambda x, lam: np.array([[1 - 2 * x[0]]]),
                       lambda x, lam: np.array([-1.0]))
    _, points, loss, crossover = followed(family, [np.sqrt(0.5)], 0.5, 2.0)
    assert loss.kind == "fold" and abs(loss.value - 1.0) < 1e-9 and abs(loss.state[0]) < 1e-4
    assert crossover is None and all(p.value < 1.0 for p in points)


def test_a_symmetric_pitchfork_is_a_branch_point():
    # x' = λx − x³: x = 0 for every λ, μ = λ crosses +1 at λ = 1 while the branch goes straight on
    family = family_of(lambda x, lam: lam * x - x ** 3, lambda x, lam: np.array([[lam - 3 * x[0] ** 2]]),
                       lambda x, lam: x.copy())
    _, _, loss, _ = followed(family, [0.0], 0.5, 1.5)
    assert loss.kind == "branch_point" and abs(loss.value - 1.0) < 1e-9


@pytest.mark.parametrize("eps", [1e-3, 1e-3 / 8])
def test_an_imperfect_pitchfork_has_a_crossover_and_a_mirror_born_in_a_saddle_node(eps):
    branch, points, loss, crossover = followed(imperfect_pitchfork(eps), [eps / 0.5], 0.5, 1.5)
    # the followed (upper) branch bends and stays stable until its flip at λ = 2: no loss in [0.5, 1.5]
    assert loss is None
    # 1 − μ = 2x² + ε/x along it, least at x = (ε/4)^(1/3)
    x = (eps / 4) ** (1 / 3)
    assert crossover.margin == pytest.approx(2 * x ** 2 + eps / x, rel=1e-12)
    # the location of a minimum is known to √(rounding) of the margin's curvature: ~1e-8 here
    assert abs(crossover.value - (1 + x ** 2 - eps / x)) < 1e-7
    # the mirror branch x < 0 turns at dλ/dx = 0: x = −(ε/2)^(1/3), λ = 1 + 3 (ε/2)^(2/3)
    past = [p for p in points if p.value > crossover.value]
    birth, modulus = mirror_birth(branch, past, lambda state: -state, 0.5)
    assert abs(birth - (1 + 3 * (eps / 2) ** (2 / 3))) < 1e-9
    assert modulus < 1                                 # found on its stable side


def test_the_closest_approach_scales_as_the_two_thirds_power_of_the_imperfection():
    margins = [followed(imperfect_pitchfork(eps), [eps / 0.5], 0.5, 1.5)[3].margin for eps in (1e-3, 1e-3 / 8)]
    assert margins[0] / margins[1] == pytest.approx(8 ** (2 / 3), rel=1e-9)


def test_a_flip_of_the_logistic_map():
    family = family_of(lambda x, r: r * x * (1 - x), lambda x, r: np.array([[r * (1 - 2 * x[0])]]),
                       lambda x, r: x * (1 - x))
    _, _, loss, _ = followed(family, [1 - 1 / 2.5], 2.5, 3.5)
    assert loss.kind == "flip" and abs(loss.value - 3.0) < 1e-9 and loss.critical.real == pytest.approx(-1)


def test_a_neimark_sacker_point_of_the_delayed_logistic_map():
    # (x, y) → (y, r y (1 − x)): the fixed point 1 − 1/r has the pair e^(±iπ/3) at r = 2
    family = family_of(lambda x, r: np.array([x[1], r * x[1] * (1 - x[0])]),
                       lambda x, r: np.array([[0.0, 1.0], [-r * x[1], r * (1 - x[0])]]),
                       lambda x, r: np.array([0.0, x[1] * (1 - x[0])]))
    _, _, loss, _ = followed(family, [1 - 1 / 1.5] * 2, 1.5, 2.5)
    assert loss.kind == "neimark_sacker" and abs(loss.value - 2.0) < 1e-9
    assert loss.rotation_number == pytest.approx(1 / 6, abs=1e-9)
