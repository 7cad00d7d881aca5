"""``meanfield analyze --bifurcations`` on a small 1-D sweep of the paper model: label brackets around the rest
cycle's Neimark–Sacker point and the period-28 cycle's period doublings become located points (values from
docs/bifurcations.md §5, themselves checked against central differences in tests/simulate/test_orbits.py)."""
import pytest

from .helpers import cli, write_sweep

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
    # 1e-7 rounding: the located values are accurate to 1e-10 (tests/simulate/test_orbits.py)
    assert ("neimark_sacker", 1.2434445) in located
    assert ("period_doubling", 1.2711184) in located
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
