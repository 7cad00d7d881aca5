"""``meanfield analyze --bifurcations`` on a small 1-D sweep of the paper model: label brackets around the rest
cycle's Neimark–Sacker point and the period-28 cycle's period doublings become located points (the
Neimark–Sacker value from docs/bifurcations.md §5, checked against central differences in
tests/simulate/test_orbits.py; the period doubling located here, independently, by bisection)."""
import numpy as np
import pytest

import meanfield as mf

from ..by_hand import periodic_point
from .helpers import cli, write_sweep

L, PERIOD = 4, 28  # the paper model's context; the cycle whose doubling is located


def period_28_cycle(beta, x, pe):
    """The period-28 cycle at ``beta`` (a fixed point of the 28-step map) and its multipliers (tests/by_hand.py)."""
    return periodic_point(mf.presets.paper(beta_o=beta), x, pe, PERIOD, 1e-12)


def period_doubling_by_bisection(stable, towards, step=2.5e-4, resolution=1e-11):
    """Where the period-28 cycle's most negative multiplier first crosses −1 going from the sweep's point
    ``stable`` (the cycle stable there, settled on from the sweep's checkpoint start) towards ``towards``: the
    cycle followed in steps of ``step`` (each Newton started from the last cycle) to the first past −1, then
    bisected."""
    settled = mf.simulate(mf.presets.paper(beta_o=stable), 100_000, 99_999).final_state   # onto the cycle
    pe = np.asarray(settled.pe, dtype=float)
    x, mu = period_28_cycle(stable, np.asarray(settled.att, dtype=float).ravel(), pe)
    assert np.abs(mu).max() < 1                                          # the stable cycle
    direction, past, x_past = np.sign(towards - stable), stable, x
    while mu.real.min() > -1:
        stable, x, past = past, x_past, past + direction * step
        assert direction * (towards - past) > -step, "no flip before the sweep's next point"
        x_past, mu = period_28_cycle(past, x, pe)
    while abs(past - stable) > resolution:
        mid = (stable + past) / 2
        x_mid, mu = period_28_cycle(mid, x, pe)
        stable, past, x = (mid, past, x_mid) if mu.real.min() > -1 else (stable, mid, x)
    return (stable + past) / 2


RUN = """
name = "onset_small"
steps = 60000
transient = 40000
chunk = 4

[model]
preset = "paper"

[grid]
beta_o = [1.2425, 1.2430, 1.2434, 1.2436, 1.2440, 1.2680, 1.2700, 1.2710, 1.2712]

[record]
observables = ["mo_se"]
tail = 0
"""


@pytest.mark.slow
def test_brackets_become_located_points(tmp_path, capsys):
    path = write_sweep(tmp_path / "onset.h5", RUN)
    assert cli(["analyze", path, "--bifurcations"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith(("multipliers", "labels"))]
    located = {(r[1], round(float(r[2]), 7)) for r in rows if r[0] == "multipliers"}
    # 1e-7 rounding: the docs' value has 7 decimals (tests/simulate/test_orbits.py checks the located point
    # against central differences to 1e-9)
    assert ("neimark_sacker", 1.2434445) in located
    # the period-28 cycle, stable at 1.2700 and 1.2710, doubles going down (bracket 1.2680 … 1.2700) and going up
    # (1.2710 … 1.2712); both doublings located here by bisection. 1e-9: the table's values are located to 1e-10
    # and printed to 10 decimals (±5e-11); the bisection runs to 1e-11, and its central-difference multiplier is
    # off by ≤ 3e-8 (truncation ∝ h², measured against h = 1e-5 and 1e-7 at both flips), i.e. β_o by ≤ 5e-11
    # (|dμ/dβ_o| ≈ 870 and 580 there): 1e-9 is five times their sum (they agree to 6e-11 as measured)
    doublings = sorted(float(r[2]) for r in rows if r[:2] == ["multipliers", "period_doubling"])
    expected = [period_doubling_by_bisection(1.2700, 1.2680), period_doubling_by_bisection(1.2710, 1.2712)]
    assert len(doublings) == 2 and np.abs(np.subtract(doublings, expected)).max() < 1e-9, (doublings, expected)
    assert "rotation number 0.2419" in out
    # every transition of the table is accounted for by a located point or a bracket
    assert rows and all(r[0] in ("multipliers", "labels") for r in rows)
    # 1.2434 is 4.4e-5 below the Neimark–Sacker point (|μ| = 0.99994 per L steps): after 60 000 steps it is
    # still approaching the rest cycle; labelled fixed_point or confirmed as one by Newton, never a bracket
    confirmed = [line.split() for line in out.splitlines() if "->" in line and line.strip()[:1].isdigit()]
    assert all(c[-4] == "fixed_point" for c in confirmed if c[0].startswith("1.2434"))
    brackets = {round(float(r[2]), 4) for r in rows if r[0] == "labels"}
    assert not brackets & {1.2430, 1.2434}


def test_branch_figure_draws_stable_solid_and_unstable_dashed(tmp_path):
    # the logistic fixed point continued over r ∈ [2.5, 3.2]: stable up to its flip at r = 3, unstable after,
    # so each panel of the one window holds exactly one solid and one dashed curve
    import numpy as np

    from meanfield.analysis.bifurcations import continue_and_locate
    from meanfield.analysis.orbits import numba_family
    from meanfield.plots.branches import branches_figure
    from tests.analysis.textbook import logistic_jacobian, logistic_step

    family = numba_family(logistic_step, logistic_jacobian, np.array([2.5]), 0)
    found, branch = continue_and_locate(family, np.array([[0.6]]), 1, (2.5, 3.2))
    fig = branches_figure([("fixed point", branch, "tab:blue")], found)
    top, bottom = fig.axes[0], fig.axes[1]
    styles = sorted(line.get_linestyle() for line in top.get_lines() if line.get_label().startswith("fixed"))
    assert styles == ["-", "--"]
    assert len(bottom.get_lines()) == 2 + 1 + 2          # two pieces, |μ| = 1, the located flip's line and marker
    fig.savefig(tmp_path / "branches.png")
    assert (tmp_path / "branches.png").stat().st_size > 10_000
