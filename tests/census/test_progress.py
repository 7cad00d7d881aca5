"""``continue_attractors(compute=Compute(progress=True))``: one bar over the parameter values on stderr;
``progress=False``: none
(the Hénon map of tests/test_user_map.py, where a census is cheap)."""
import re

import meanfield as mf
from tests.test_user_map import HENON


def test_continue_attractors_shows_one_bar_over_the_values(capsys):
    mf.continue_attractors(HENON, {"a": [0.2, 0.3, 0.4]}, 8, 2_000, 1_000, compute=mf.Compute(progress=True))
    err = capsys.readouterr().err
    assert re.search(r"continue_attractors: 100%\|[^|]*\| 3/3", err), err
    mf.continue_attractors(HENON, {"a": [0.2, 0.3, 0.4]}, 8, 2_000, 1_000, compute=mf.Compute(progress=False))
    assert capsys.readouterr().err == ""
