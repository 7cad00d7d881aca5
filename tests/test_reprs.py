"""Results print short (docs/api.md, "Results print short"): every result's repr is at most 2 000 characters and
shows its arrays by shape, whatever their size; the values stay on the object."""
import dataclasses

import numpy as np
import pytest

import meanfield as mf
import meanfield.analysis
import meanfield.census
from meanfield.analysis import classify
from meanfield.short_repr import LIMIT, fields_repr, short

from .test_user_map import HENON

pytestmark = pytest.mark.unit


@dataclasses.dataclass
class Holder:
    series: np.ndarray
    names: list
    table: dict
    small: np.ndarray
    label: str = "x" * 5000


def test_arrays_by_shape_long_lists_by_length_and_a_bounded_whole():
    held = Holder(np.arange(999.0), list(range(500)), {f"k{i}": np.zeros(3) for i in range(40)}, np.array([1.5, 2.0]))
    text = fields_repr(held)
    assert len(text) <= LIMIT
    assert text.startswith("Holder(series=array(shape=(999,), dtype=float64), names=[0, 1, 2, 3, 4, 5, … 494 more]")
    assert "… 34 more}" in text and "small=[1.5, 2. ]" in text
    assert short(np.zeros((2, 2))) == "array(shape=(2, 2), dtype=float64)"


def public_dataclasses():
    for module in (mf, mf.analysis, mf.census):
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, type) and dataclasses.is_dataclass(value):
                yield value


def test_every_public_dataclass_prints_short():
    # a generated dataclass repr prints every array; each public one has the short repr or its own lines
    # (dataclasses compiles its methods from source text, named after its own file or "<string>")
    generated = [cls.__name__ for cls in public_dataclasses()
                 if cls.__repr__.__code__.co_filename in (dataclasses.__file__, "<string>")]
    assert generated == []


@pytest.fixture(scope="module")
def results():
    flip, = found = mf.bifurcations(HENON.replace(a=0.2), "a", (0.2, 0.5), transient=1_000)
    paper = mf.presets.paper()
    trajectory = mf.simulate(HENON, 3_000, 1_000)
    census = mf.find_attractors(HENON.replace(a=0.9), 8, 2_000, 1_000)
    return {
        "located": found, "bifurcation": flip,
        "curve": mf.bifurcation_curve(HENON.replace(a=0.2), flip, "b", (-0.5, 0.5)),
        "orbit": mf.periodic_orbit(HENON.replace(a=0.9), transient=1_000),
        "map trajectory": trajectory,
        "classification": classify(trajectory),
        "census": census,
        "attractor": census.attractors[0],
        "trajectory": mf.simulate(paper, 3_000, lyapunov=True),
        "batch": mf.simulate_batch(paper, 3_000, parameters={"beta_o": np.linspace(1.0, 1.4, 4)}),
        "model": paper,
    }


@pytest.mark.parametrize("name", ["located", "bifurcation", "curve", "orbit", "map trajectory", "classification",
                                  "census", "attractor", "trajectory", "batch", "model"])
def test_a_result_prints_in_at_most_2000_characters(results, name):
    text = repr(results[name])
    assert len(text) <= LIMIT, text[:300]
    assert "\n" not in text or name in ("located", "census")       # those two: a line per item


def test_the_long_arrays_are_named_by_shape(results):
    assert "series=array(shape=(2000, 2)" in repr(results["map trajectory"]) or \
        "states=array(shape=(2000, 2)" in repr(results["map trajectory"])
    assert f"values=array(shape={results['curve'].values.shape}" in repr(results["curve"])
    assert repr(results["located"]).splitlines()[1] == \
        f"  period_doubling at a = {results['bifurcation'].value:.12g} (period 1)"
