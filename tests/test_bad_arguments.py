"""Every public entry point refuses a bad argument before anything compiles, loads compiled code or runs: with
every way into compiled code made to fail, each documented argument given a value its documentation does not
allow is answered by a ConfigError naming that argument (an AnalysisError from the generic analysis, a StoreError
for a file that is not there), in one line, and nothing is written (docs/storage.md §11). The corpus holds every
callable of the public API (docs/api.md)."""
import functools
import math

import numba
import numpy as np
import pytest

import meanfield as mf
import meanfield.analysis.maps
import meanfield.analysis.orbits
import meanfield.attention_orbits
import meanfield.finite
import meanfield.kernels.cpu
from meanfield.analysis.bifurcations import Bifurcation

from .test_user_map import HENON

pytestmark = pytest.mark.unit

PAPER = mf.presets.paper()
L = PAPER.context
#: A shipped run file and an output that no refused call may write.
RUN, NEVER = "paper_fig3_quick", "never.h5"
NS_POINT = Bifurcation("neimark_sacker", 1.2434, np.array([np.exp(0.5j), np.exp(-0.5j), 0.3]), L, 0.08,
                       np.zeros((L, 12)), -2.6, "beta_o")


@pytest.fixture(autouse=True)
def nothing_compiled_or_run(monkeypatch):
    """Compiling or loading a numba function, an attention kernel, Newton's images or a Map's run: each fails."""
    def refuse(*args, **kwargs):
        raise AssertionError("compiled code was reached with a bad argument")

    monkeypatch.setattr(numba.core.dispatcher.Dispatcher, "_compile_for_args", refuse)
    monkeypatch.setattr(meanfield.kernels.cpu, "run_batch", refuse)
    monkeypatch.setattr(meanfield.kernels.cpu, "images_and_jacobians", refuse)
    monkeypatch.setattr(meanfield.analysis.orbits, "_images", refuse)
    monkeypatch.setattr(meanfield.analysis.maps, "_orbit", refuse)


#: An option record made inside the test, a call deferred (a record checks its fields when it is made).
Made = functools.partial


CORPUS = {
    # (entry point, positional arguments, keyword arguments, the argument the error must name)
    "simulate": [
        ((PAPER, 0), {}, "steps"), ((PAPER, 2.5), {}, "steps"), ((PAPER, 10, -1), {}, "transient"),
        ((PAPER, 10, 10), {}, "transient"), ((PAPER, 10), {"lyapunov": 13}, "lyapunov"),
        ((PAPER, 10), {"record": "nope"}, "record"), ((PAPER, 10), {"record": 5}, "record"),
        ((PAPER, 10), {"record": Made(mf.Record, every=0)}, "every"),
        ((PAPER, 10), {"lyapunov": Made(mf.Lyapunov, qr_every=0)}, "qr_every"),
        ((PAPER, 10), {"lyapunov": Made(mf.Lyapunov, n_blocks=2.5)}, "n_blocks"),
        ((PAPER, 100, 95), {"lyapunov": mf.Lyapunov(n_blocks=6)}, "n_blocks"),
        ((PAPER, 10), {"lyapunov": "all"}, "lyapunov"),
        ((PAPER, 10), {"compute": Made(mf.Compute, backend="tpu")}, "backend"),
        ((PAPER, 10), {"compute": Made(mf.Compute, progress="yes")}, "progress"),
        ((PAPER, 10), {"compute": "cuda"}, "compute"),
        ((PAPER, 10), {"compute": mf.Compute(chunk=4)}, "chunk"), ((PAPER, 10), {"start": "checkpoint"}, "start"),
        ((HENON, 0), {}, "transient"), ((HENON, 10), {"record": "att"}, "record"),
    ],
    "simulate_batch": [
        ((PAPER, 10), {"parameters": {"nope": [1.0]}}, "nope"),
        ((PAPER, 10), {"parameters": {"beta_o": [math.nan]}}, "beta_o"),
        ((PAPER, 10), {"parameters": {"beta_o": [1.0, 1.1, 1.2]}, "start": [PAPER.checkpoint] * 2}, "start"),
    ],
    "periodic_orbit": [
        ((PAPER,), {"period": -4}, "period"), ((PAPER,), {"period": 0}, "period"),
        ((PAPER,), {"period": 2.5}, "period"),
        ((PAPER,), {"transient": -1}, "transient"), ((PAPER,), {"state": "checkpoint"}, "state"),
        ((HENON,), {"period": 0}, "period"), ((HENON,), {"transient": -1}, "transient"),
        (("paper",), {}, "model"),
    ],
    "bifurcations": [
        ((PAPER, "nope", (1.2, 1.3)), {}, "parameter"), ((PAPER, "beta_o", (1.2, 1.2)), {}, "interval"),
        ((PAPER, "beta_o", "ab"), {}, "interval"), ((PAPER, "beta_o", (1.2, 1.3)), {"period": 0}, "period"),
        ((PAPER, "beta_o", (1.2, 1.3)), {"resolution": 0}, "resolution"),
        ((PAPER, "beta_o", (1.2, 1.3)), {"progress": "yes"}, "progress"),
        ((PAPER, "beta_o", (1.2, 1.3)), {"transient": -1}, "transient"),
        ((PAPER, "beta_o", (1.2, 1.3)), {"state": "checkpoint"}, "state"),
        ((HENON, "c", (0.2, 0.5)), {}, "parameter"),
    ],
    "bifurcation_curve": [
        ((PAPER, None, "beta_att", (0.5, 7.0)), {}, "point"), ((PAPER, NS_POINT, "nope", (0.5, 7.0)), {}, "parameter"),
        ((PAPER, NS_POINT, "beta_att", (3.0, 7.0)), {}, "interval"),
        ((PAPER, NS_POINT, "beta_att", (0.5, 7.0)), {"max_points": 0}, "max_points"),
        ((PAPER, NS_POINT, "beta_att", (0.5, 7.0)), {"max_step": -1.0}, "max_step"),
    ],
    "find_attractors": [
        ((PAPER, 0, 4000, 2000), {}, "starts"), ((PAPER, 8, 1000, 2000), {}, "transient"),
        ((PAPER, Made(mf.census.Starts, 8, seed=-1), 4000, 2000), {}, "seed"),
        ((PAPER, Made(mf.census.Starts, 8, sampler="nope"), 4000, 2000), {}, "sampler"),
        ((PAPER, [], 4000, 2000), {}, "starts"), ((PAPER, "eight", 4000, 2000), {}, "starts"),
        ((PAPER, None, 4000, 2000), {}, "starts"), ((PAPER, 8.0, 4000, 2000), {}, "starts"),
        ((PAPER, 8, 4000, 2000), {"tolerances": Made(mf.census.Tolerances, max_period=0)}, "max_period"),
        ((PAPER, 8, 4000, 2000), {"tolerances": Made(mf.census.Tolerances, cycle_rtol=-1)}, "cycle_rtol"),
        ((PAPER, 8, 4000, 2000), {"tolerances": (1e-4, 0.05)}, "tolerances"),
        ((PAPER, 8, 4000, 2000), {"compute": Made(mf.Compute, backend="tpu")}, "backend"),
        ((PAPER, 8, 4000, 2000), {"compute": Made(mf.Compute, chunk=0)}, "chunk"),
        ((PAPER, 8, 4000, 2000), {"transients": 10}, "transients"), ((HENON, 0, 4000, 2000), {}, "starts"),
    ],
    "continue_attractors": [
        ((PAPER, {"nope": [1.2, 1.3]}, 4, 4000, 2000), {}, "parameter"),
        ((PAPER, {"beta_o": []}, 4, 4000, 2000), {}, "values"),
        ((PAPER, "beta_o", 4, 4000, 2000), {}, "along"),
        ((PAPER, {"beta_o": [1.2], "gamma": [0.1]}, 4, 4000, 2000), {}, "along"),
        ((PAPER, {"beta_o": [1.2, 1.3]}, 0, 4000, 2000), {}, "starts"),
        ((PAPER, {"beta_o": [1.2, 1.3]}, Made(mf.census.Starts, 4, sampler="nope"), 4000, 2000), {}, "sampler"),
        ((PAPER, {"beta_o": [1.2, 1.3]}, 4, 4000, 2000), {"tolerances": Made(mf.census.Tolerances, match_rtol=-1.0)},
         "match_rtol"),
    ],
    "arnold_tongue": [
        ((PAPER, "checkpoint"), {}, "state"),
        ((PAPER, PAPER.checkpoint), {"parameters": ("beta_o",) * 2}, "parameters"),
        ((PAPER, PAPER.checkpoint), {"search": 0.0}, "search"), ((HENON, PAPER.checkpoint), {}, "model"),
    ],
    "confirm_cycle": [
        ((PAPER, PAPER.checkpoint, 0), {}, "period"), ((PAPER, PAPER.checkpoint, 4), {"max_steps": 0}, "max_steps"),
    ],
    "aligned_start": [((PAPER, "x"), {}, "att"), ((PAPER, np.zeros((2, 3))), {}, "att")],
    "finite_weights": [((PAPER, 0), {}, "n_bits")],
    "simulate_finite_batch": [
        ((PAPER, 64, 10, 0), {}, "replicas"), ((PAPER, 64, 10, 2), {"parameters": {"nope": [1.0]}}, "nope"),
        ((PAPER, 64, 10, Made(mf.Replicas, 2, seed=2 ** 64)), {}, "seed"),
    ],
    "simulate_finite": [
        ((PAPER, 0, 10), {}, "n_bits"), ((PAPER, 64, 0), {}, "steps"), ((PAPER, 64, 10, 0), {}, "replicas"),
        ((PAPER, 64, 10, Made(mf.Replicas, 2, sampler="nope")), {}, "sampler"),
        ((PAPER, 64, 10, "two"), {}, "replicas"),
    ],
    "sweep": [
        ((RUN, NEVER), {"resume": "yes"}, "resume"), ((RUN, NEVER), {"overwrite": None}, "overwrite"),
        ((RUN, NEVER), {"retries": -1}, "retries"), ((RUN, NEVER), {"callback": 3}, "callback"),
        ((RUN, NEVER), {"progress": "yes"}, "progress"), ((RUN, NEVER), {"place": "local"}, "place"),
        ((RUN, NEVER), {"place": Made(mf.Place, workers=0)}, "workers"),
        (("no-such-run", NEVER), {}, "no-such-run"),
    ],
    "load_run": [((RUN,), {"steps": -5}, "steps"), ((RUN,), {"nope": 1}, "nope")],
    "sweep_results": [((NEVER,), {}, "never.h5")],
    "open_run": [((NEVER,), {}, "never.h5")],
    "Lyapunov": [((), {"k": 0}, "k")], "Record": [((), {"fields": "nope"}, "record")],
    "Compute": [((), {"chunk": 0}, "chunk")], "Place": [((), {"scheduler": 5}, "scheduler")],
    "Replicas": [((0,), {}, "replicas")],
    "State": [((), {"att": np.full((2, 3), np.nan), "pe": np.zeros((2, 2))}, "att")],
    "Control": [((), {"rho": 2.0}, "rho")],
    "ModelSpec": [((), {"coefficients": "x", "pe_weights": None, "context": 0}, "context")],
    "Map": [(("step", HENON.jacobian, [0.0, 0.0], {"a": 1.0}), {}, "step")],
    "census.Starts": [((0,), {}, "starts")],
    "census.Tolerances": [((), {"measure_rtol": 2.0}, "measure_rtol")],
    "census.ShockSearch": [((), {"radius": -1.0}, "radius")],
    "census.plane": [((PAPER,), {"resolution": 1}, "resolution"), ((PAPER,), {"features": (0, 9)}, "features")],
    "census.basin_map": [((PAPER, None, None, 100, 99), {}, "transient"), ((PAPER, None, None, 1000, 0), {}, "plane"),
                         ((PAPER, None, Made(mf.census.plane, PAPER, resolution=4), 1000, 0), {}, "attractors"),
                         ((PAPER, None, None, 1000, 0), {"compute": mf.Compute(progress=True)}, "progress")],
    "census.minimal_critical_shock": [((PAPER, None, 0, PAPER.checkpoint, 600, 0),
                                       {"search": Made(mf.census.ShockSearch, tol=2.0)}, "tol"),
                                      ((PAPER, None, 0, PAPER.checkpoint, 600, 0), {"compute": mf.Compute(chunk=4)},
                                       "chunk")],
    "census.uniform_windows": [((PAPER, 0), {}, "n")], "census.random_tokens": [((PAPER, 2), {"seed": -1}, "seed")],
    "census.perturbations": [((PAPER.checkpoint, 2), {"radius": -1.0}, "radius")],
    "census.projection_grid": [((PAPER, (0, 1), ((0, 1),), (2, 2)), {}, "bounds")],
    "census.attractor_events": [(("a dataset",), {}, "ds")],
    "analysis.classify": [((np.zeros((0, 3)),), {}, "series"), ((np.ones((1000, 3)),), {"feature": 7}, "feature")],
    "analysis.classify_many": [((np.ones((1000, 3)),), {}, "series")],
    "analysis.Thresholds": [((), {"min_length": 0}, "min_length")],
    "analysis.poincare_section": [((np.ones((100, 3)), 0), {"direction": 2}, "direction")],
    "analysis.detect_period": [((np.ones(100),), {"min_repeats": 0}, "min_repeats")],
    "analysis.power_spectrum": [((np.ones(100),), {"nperseg": 0}, "nperseg")],
    "analysis.dominant_frequencies": [((np.ones(5), np.ones(4)), {}, "power")],
    "analysis.spectral_entropy": [((np.array([-1.0, 2.0]),), {}, "power")],
    "analysis.autocorrelation": [((np.ones(100),), {"max_lag": -1}, "max_lag")],
    "analysis.rotation_number": [((np.ones((10, 3)),), {"forcing_period": 0}, "forcing_period")],
    "analysis.weighted_birkhoff_average": [((np.array([np.nan, 1.0]),), {}, "x")],
    "analysis.chaos01_test": [((np.ones(100),), {"n_c": 0}, "n_c")],
    "analysis.lyapunov_spectrum": [((HENON.step, HENON.jacobian, [0.1, 0.1], 100), {"k": 3}, "k")],
    "analysis.escape_rate": [(([1.0, 2.0],), {"horizon": -1}, "horizon")],
    "analysis.locate_bifurcations": [((HENON.step, HENON.jacobian, [0.1, 0.1], 0, 0, (0.2, 0.5)),
                                      {"params": [0.2, 0.3]}, "period")],
    "analysis.continue_curve": [((HENON.step, HENON.jacobian, NS_POINT, (0, 0), (0.2, 0.5)), {"params": [0.2, 0.3]},
                                 "parameters")],
    "analysis.normal_form_coefficient": [(("cusp", None, np.ones((1, 2)), np.ones((1, 2, 2))), {}, "kind")],
    "analysis.fingerprint": [((np.ones((2, 100, 1)),), {"max_period": 0}, "max_period")],
    "analysis.group_attractors": [((None,), {}, "prints")],
    "analysis.match_attractors": [((np.ones((1, 3, 1)), np.zeros(2, int), np.ones((1, 3, 1))), {"next_id": 0},
                                   "previous_ids")],
    "analysis.basin_entropy": [((np.zeros((10, 10), int),), {"box": 0}, "box")],
    "analysis.uncertainty_exponent": [((lambda x: x, np.zeros((4, 2)), [0.1]), {}, "epsilons")],
    "analysis.wada_merging": [((np.zeros((10, 10), int),), {"max_radius": -1}, "max_radius")],
    "analysis.tipping_probabilities": [((np.zeros(3, int), np.zeros(4, int)), {}, "after")],
}
CASES = [(name, *case) for name, cases in CORPUS.items() for case in cases]
#: The entry points the corpus names that are not names of ``meanfield`` (docs/api.md).
ENTRY = {"confirm_cycle": meanfield.attention_orbits.confirm_cycle, "aligned_start": meanfield.finite.aligned_start,
         "finite_weights": meanfield.finite.finite_weights}


def entry_point(name: str):
    """The callable the corpus names: a dotted name under ``meanfield``, or one of :data:`ENTRY`."""
    if name in ENTRY:
        return ENTRY[name]
    value = mf
    for part in name.split("."):
        value = getattr(value, part)
    return value


@pytest.mark.parametrize("name, args, kwargs, key", CASES,
                         ids=[f"{c[0]}-{c[3]}-{i}" for i, c in enumerate(CASES)])
def test_a_bad_argument_is_refused_before_anything_compiles(name, args, kwargs, key, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                  # a file a refused call would write lands here, and is looked for
    expected = (mf.AnalysisError, mf.ConfigError) if name.startswith("analysis.") else (
        mf.StoreError if name in ("sweep_results", "open_run") else mf.ConfigError)
    with pytest.raises(expected) as refused:
        entry_point(name)(*[a() if isinstance(a, Made) else a for a in args],
                          **{k: v() if isinstance(v, Made) else v for k, v in kwargs.items()})
    message = str(refused.value)
    assert key in message and "\n" not in message, message
    assert list(tmp_path.iterdir()) == []


def test_the_corpus_holds_every_public_callable():
    public = [f"{prefix}{name}" for prefix, namespace in (("", mf), ("analysis.", mf.analysis), ("census.", mf.census))
              for name in namespace.__all__]
    callables = [name for name in public if callable(entry_point(name)) and not isinstance(entry_point(name), type(mf))
                 and not (isinstance(entry_point(name), type) and issubclass(entry_point(name), Exception))]
    assert sorted(set(callables) - set(CORPUS)) == []
