"""Continuations show where they are (meanfield/progress.py): ``mf.bifurcations`` and ``mf.bifurcation_curve``
report the parameter of every Newton iterate, as a bar over the share of the interval covered (``progress=True``),
and the continuation behind them to a caller's function (``analyze --bifurcations`` writes it beside its bar over
brackets). Checked on the
Hénon map, whose fixed point flips at a = 3(1 − b)²/4 (0.3675 at b = 0.3), and on the bar classes alone."""
import re

import numpy as np
import pytest

import meanfield as mf
import meanfield.progress as progress_module
from meanfield.errors import ConfigError
from meanfield.periodic_orbits import located
from meanfield.progress import Heartbeat, SpanBar, progress_bar
from meanfield.systems import as_system
from tests.analysis.textbook import henon_jacobian, henon_step

HENON = mf.Map(henon_step, henon_jacobian, [0.5, 0.1], {"a": 0.2, "b": 0.3})


def test_every_newton_iterate_of_a_continuation_reports_its_parameter():
    values = []
    flip, = located(as_system(HENON), "a", (0.2, 0.5), None, None, 1e-10, 1_000, values.append)
    assert flip.kind == "period_doubling" and abs(flip.value - 0.3675) < 1e-9
    # from the first step (at most 1/20 of the interval) through the flip to the end, and Brent's iterates near it
    assert 0.2 < min(values) <= 0.215 and max(values) >= 0.5
    assert np.sum(np.abs(np.asarray(values) - 0.3675) < 1e-3) >= 3


def test_a_continuation_bar_ends_full_and_a_quiet_one_writes_nothing(capsys):
    mf.bifurcations(HENON, "a", (0.2, 0.5), transient=1_000, progress=True)
    assert re.search(r"a: 100%\|[^|]*\| 100/100", capsys.readouterr().err)
    mf.bifurcations(HENON, "a", (0.2, 0.5), transient=1_000)
    assert capsys.readouterr().err == ""


def test_a_curve_bar_covers_both_directions_from_its_start(capsys):
    flip, = mf.bifurcations(HENON, "a", (0.2, 0.5), transient=1_000)
    curve = mf.bifurcation_curve(HENON, flip, "b", (-0.5, 0.5), progress=True)
    assert curve.values[:, 1].min() == -0.5 and curve.values[:, 1].max() == 0.5
    assert re.search(r"b: 100%\|[^|]*\| 100/100", capsys.readouterr().err)


def test_progress_other_than_true_none_or_false_is_refused():
    flip, = mf.bifurcations(HENON, "a", (0.2, 0.5), transient=1_000)
    with pytest.raises(ConfigError, match=r"^progress = 'yes' is not allowed: must be True, None or False$"):
        mf.bifurcations(HENON, "a", (0.2, 0.5), progress="yes")
    with pytest.raises(ConfigError, match=r"^progress = 1 is not allowed: must be True, None or False$"):
        mf.bifurcation_curve(HENON, flip, "b", (-0.5, 0.5), progress=1)
    with pytest.raises(ConfigError, match=r"^progress = 'yes' is not allowed: must be True, None or False$"):
        mf.sweep("tiny", "never-written.h5", progress="yes")


def test_a_span_bar_counts_the_range_reached_clipped_and_never_backwards():
    with SpanBar((2.0, 0.0), 1.0, "x") as span:      # a curve's start in the middle of its interval
        for value, percent in ((1.25, 12), (0.75, 25), (1.125, 25), (-3.0, 62), (0.5, 62), (9.0, 100)):
            span(value)
            assert span.bar.n == percent, (value, span.bar.n)


def test_a_heartbeat_writes_the_value_at_most_every_interval(monkeypatch):
    clock = iter([0.0, 0.1, 0.2, 0.6, 0.7])
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: next(clock))
    bar = progress_bar(3, "transitions", enabled=True)
    beat, shown = Heartbeat(bar, "continuing at beta_o", every=0.5), []
    for value in (1.0, 1.1, 1.2, 1.3, 1.4):
        beat(value)
        shown.append(bar.postfix)
    bar.close()
    assert shown == ["continuing at beta_o = 1"] * 3 + ["continuing at beta_o = 1.3"] * 2
