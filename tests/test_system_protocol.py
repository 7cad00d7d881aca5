"""One system protocol in every generic tool (docs/architecture.md, "Systems"): the attention model wrapped as a
system (``AttentionSystem``) gives what the ModelSpec gives, bit for bit, in simulate, classify,
find_attractors, continue_attractors, periodic_orbit, bifurcations and bifurcation_curve; a user's ``Map`` goes
through the same seven tools and meets the Hénon map's closed forms (Hénon 1976: the fixed point
x* = (−(1 − b) + √((1 − b)² + 4a)) / (2a), y* = b x*, flips at a = 3(1 − b)²/4)."""
import re

import numpy as np
import pytest

import meanfield as mf
from meanfield.analysis import classify
from meanfield.errors import ConfigError
from meanfield.systems import AttentionSystem

from .test_user_map import HENON, henon_fixed_point

pytestmark = pytest.mark.unit

PAPER = mf.presets.paper()


def run_tool(tool, model):
    """The tool's answer for ``model`` (the paper model, or it wrapped as a system), as arrays to compare."""
    if tool == "simulate":
        traj = mf.simulate(model, 3_000, 1_000, lyapunov=True)
        return traj.att, traj.lyapunov
    if tool == "classify":
        return classify(mf.simulate(model, 3_000, 1_000)).label
    if tool == "find_attractors":
        census = mf.find_attractors(model, 6, 4_000, 2_000)
        return census.assignment, [(a.label, a.period, a.fraction) for a in census.attractors]
    if tool == "continue_attractors":
        found = mf.continue_attractors(model, {"beta_o": [1.25, 1.27]}, 4, 4_000, 2_000)
        return [ids.tolist() for ids in found.ids], [[a.label for a in c.attractors] for c in found.censuses]
    if tool == "periodic_orbit":
        orbit = mf.periodic_orbit(model.replace(beta_o=1.2))        # the rest cycle (β_o = 1.266: a torus)
        return orbit.points, orbit.multipliers
    point, = mf.bifurcations(model, "beta_o", (1.24, 1.245))
    if tool == "bifurcations":
        return point.kind, point.value, point.points
    curve = mf.bifurcation_curve(model, point, "beta_att", (2.1, 2.3), max_points=6)
    return curve.values, curve.multipliers


TOOLS = ["simulate", "classify", "find_attractors", "continue_attractors", "periodic_orbit", "bifurcations",
         "bifurcation_curve"]


@pytest.mark.parametrize("tool", TOOLS)
def test_the_attention_system_gives_the_models_answer_bit_for_bit(tool):
    through_system, direct = run_tool(tool, AttentionSystem(PAPER)), run_tool(tool, PAPER)
    np.testing.assert_equal(through_system, direct)


def test_a_map_goes_through_the_same_tools():
    at = HENON.replace(a=0.2)
    fixed = henon_fixed_point(0.2)
    traj = mf.simulate(at, 3_000, 1_000)
    np.testing.assert_allclose(traj.states[-1], fixed, atol=1e-12)
    assert classify(traj).label == "fixed_point"
    census = mf.find_attractors(at, 8, 4_000, 2_000)
    assert [(a.label, a.period) for a in census.attractors] == [("fixed_point", 1)]
    np.testing.assert_allclose(census.attractors[0].points[0], fixed, atol=1e-12)
    found = mf.continue_attractors(HENON, {"a": [0.2, 0.3]}, 8, 4_000, 2_000)
    assert [[a.label for a in c.attractors] for c in found.censuses] == [["fixed_point"]] * 2
    np.testing.assert_allclose(mf.periodic_orbit(at, transient=1_000).points[0], fixed, atol=1e-12)
    flip, = mf.bifurcations(at, "a", (0.2, 0.5), transient=1_000)
    assert flip.kind == "period_doubling" and flip.value == pytest.approx(0.3675, abs=1e-9)
    curve = mf.bifurcation_curve(HENON.replace(a=0.3675), flip, "b", (0.2, 0.4), max_points=8)
    a, b = curve.values.T
    np.testing.assert_allclose(a, 3 * (1 - b) ** 2 / 4, atol=1e-9)


@pytest.mark.parametrize("option", [dict(record="att"), dict(record=mf.Record(every=2)),
                                    dict(compute=mf.Compute(backend="cuda")), dict(compute=mf.Compute(progress=True)),
                                    dict(lyapunov=mf.Lyapunov(qr_every=2))])
def test_a_map_refuses_the_attention_kernels_options_instead_of_ignoring_them(option):
    name, value = next(iter(option.items()))
    with pytest.raises(ConfigError, match="^" + re.escape(f"{name} = {value!r} is not allowed for a Map")):
        mf.simulate(HENON, 100, **option)


def test_the_attention_systems_run_is_the_plain_numpy_map():
    # an oracle apart from the compiled kernels: 50 steps of docs/model.md §3 in numpy from the checkpoint; the
    # kernel computes the same map to rounding (1e-12: a few ulps per step, amplified over 50 steps of a
    # contracting map)
    from meanfield.model.equations import mean_field_step

    traj = mf.simulate(AttentionSystem(PAPER), 50)
    att, pe = PAPER.checkpoint.att, PAPER.checkpoint.pe
    for t in range(50):
        att, pe, recorded = mean_field_step(PAPER, att, pe)
        np.testing.assert_allclose(traj.att[t], recorded["att"], atol=1e-12)


def test_the_attention_systems_orbit_is_a_cycle_of_the_plain_numpy_map():
    # an oracle apart from the compiled kernels: docs/model.md §3 in numpy maps each window to the next
    from meanfield.model.equations import mean_field_step

    model = PAPER.replace(beta_o=1.2)
    orbit = mf.periodic_orbit(AttentionSystem(model))
    assert orbit.stable and orbit.points.shape == (model.context, model.context * model.n_features)
    # the orbit's first window sits at the PE phase of the checkpoint after the settling steps (20 000, a
    # multiple of L: the checkpoint's own phase)
    att, pe = orbit.points[0].reshape(model.context, model.n_features), model.checkpoint.pe
    for i in range(1, 2 * model.context + 1):
        att, pe, _ = mean_field_step(model, att, pe)
        np.testing.assert_allclose(att.ravel(), orbit.points[i % model.context], atol=1e-12)


# The declared protocol (meanfield.analysis.system.System, docs/architecture.md §2): both systems have every member,
# with the protocol's parameters, and a would-be system missing one is refused by the tools' one check.

PROTOCOL = ("forcing_period", "size", "index", "value", "replace", "sample", "perturb", "run", "simulate",
            "orbit_problem", "curve_family", "confirm_cycle", "on_orbit")


def test_the_protocol_declares_what_the_tools_call_and_the_architecture_page_lists_it():
    from pathlib import Path

    from meanfield.analysis.system import MEMBERS

    assert MEMBERS == PROTOCOL
    page = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page[page.index("## 2."):page.index("## 3.")]
    listed = [re.findall(r"`(\w+)", row.split("|")[1]) for row in section.splitlines() if row.startswith("| `")]
    assert sorted(name for names in listed for name in names) == sorted(PROTOCOL)


@pytest.mark.parametrize("system", [HENON, AttentionSystem(PAPER)], ids=["Map", "AttentionSystem"])
def test_both_systems_implement_every_member_of_the_protocol(system):
    import inspect

    from meanfield.analysis.system import System, missing_members

    assert isinstance(system, System) and missing_members(system) == []
    for name in PROTOCOL:
        declared, implemented = getattr(System, name), getattr(type(system), name)
        if isinstance(declared, property):          # a number the tools read (a Map's dataclass field, a property)
            assert isinstance(getattr(system, name), int), name
            continue
        assert callable(implemented), name
        given = inspect.signature(implemented).parameters
        for parameter in inspect.signature(declared).parameters.values():
            if parameter.kind is parameter.VAR_KEYWORD:
                assert any(p.kind is p.VAR_KEYWORD or p.kind is p.KEYWORD_ONLY for p in given.values()), name
            else:
                assert parameter.name in given and given[parameter.name].kind == parameter.kind, (name, parameter)
                assert given[parameter.name].default == parameter.default, (name, parameter)


def test_a_model_spec_is_not_a_system_and_a_map_says_it_confirms_no_cycle():
    from meanfield.analysis.system import System

    assert not isinstance(PAPER, System)
    assert HENON.confirm_cycle(HENON.state, 1) is None
    orbit = mf.periodic_orbit(HENON.replace(a=0.2), transient=1_000)
    np.testing.assert_array_equal(HENON.on_orbit(orbit, HENON.state), orbit.points[0])


def _without(member: str):
    """A would-be system: every member of the protocol, delegating to the Hénon map, but ``member``."""
    body = {name: property(lambda self, name=name: getattr(HENON, name)) for name in PROTOCOL if name != member}
    return type("Incomplete", (), {**body, "__repr__": lambda self: "Incomplete()"})()


@pytest.mark.parametrize("member", ["confirm_cycle", "size", "run"])
def test_a_system_missing_a_member_is_refused_by_every_tool(member):
    from meanfield.analysis.system import System
    from meanfield.systems import as_system

    incomplete = _without(member)
    assert not isinstance(incomplete, System)
    message = "^" + re.escape(f"model = Incomplete() is not allowed: must be a ModelSpec or a meanfield.Map (as a "
                              f"system it lacks {member})") + "$"
    for tool in (as_system, lambda m: mf.simulate(m, 100), lambda m: mf.find_attractors(m, 4, 4_000, 2_000),
                 lambda m: mf.periodic_orbit(m), lambda m: mf.bifurcations(m, "a", (0.2, 0.5))):
        with pytest.raises(ConfigError, match=message):
            tool(incomplete)
    assert isinstance(_without("nothing"), System)          # the same class with every member passes
