"""An attractor whose confirming run's tail leaves the classifier undecided is labelled on a run ten tails long
from its state (meanfield.census.attractor.label_on_longer_runs, docs/attractors.md §2): checked on an attracting
invariant circle, against ``classify`` of an independent run of the same length. The paper model's case (below the
1:4 tongue) is in tests/census/test_unsettled.py."""
from functools import partial

import numba
import numpy as np

import meanfield as mf
from meanfield.analysis import classify
from meanfield.census.attractor import Attractor, label_on_longer_runs
from meanfield.census.find import LABEL_TAILS, labelling_runs
from meanfield.systems import as_system


@numba.njit(cache=True)
def ring(x, p, out):
    """A rotation by 2π ω that contracts onto the unit circle (gain 1 + μ (1 − r²)): an attracting torus."""
    gain = 1.0 + p[1] * (1.0 - (x[0] * x[0] + x[1] * x[1]))
    c, s = np.cos(2 * np.pi * p[0]), np.sin(2 * np.pi * p[0])
    out[0] = gain * (c * x[0] - s * x[1])
    out[1] = gain * (s * x[0] + c * x[1])


@numba.njit(cache=True)
def ring_jacobian(x, p, out):
    gain = 1.0 + p[1] * (1.0 - (x[0] * x[0] + x[1] * x[1]))
    c, s = np.cos(2 * np.pi * p[0]), np.sin(2 * np.pi * p[0])
    turned = (c * x[0] - s * x[1], s * x[0] + c * x[1])
    for i in range(2):
        out[i, 0] = gain * (c if i == 0 else s) - 2 * p[1] * x[0] * turned[i]
        out[i, 1] = gain * (-s if i == 0 else c) - 2 * p[1] * x[1] * turned[i]


RING = mf.Map(ring, ring_jacobian, [1.0, 0.0], {"omega": (np.sqrt(5) - 1) / 2, "mu": 0.3},
              box=([-1, -1], [1, 1]))
STEPS, TRANSIENT = 2_000, 1_000


def on_the_circle(label: str) -> Attractor:
    state = np.array([np.cos(1.0), np.sin(1.0)])
    return Attractor(label=label, period=0, fraction=1.0, fraction_stderr=0.0, lyapunov=None, state=state,
                     summary=np.zeros((3, 2)), points=np.zeros((4, 2)), scale=1.0, reason="undecided")


def test_an_undecided_attractor_is_labelled_on_a_run_ten_tails_long():
    system = as_system(RING)
    undecided, decided = on_the_circle("unresolved"), on_the_circle("periodic")
    out = label_on_longer_runs(system, [decided, undecided], partial(labelling_runs, system, steps=STEPS,
                                                                      transient=TRANSIENT))
    steps = LABEL_TAILS * (STEPS - TRANSIENT)
    independent = classify(mf.simulate(RING, steps, 0, start=undecided.state, compute=mf.Compute(progress=False)))
    assert independent.label == "quasi_periodic"                  # golden-mean rotation: a torus, never locked
    assert out[1].label == independent.label and f"labelled on {steps} steps" in out[1].reason
    assert out[0] is decided                                      # a decided label is left as it is
    # the identity stays the confirming run's
    assert out[1].state is undecided.state and out[1].points is undecided.points
    assert (out[1].summary is undecided.summary and out[1].scale == undecided.scale
            and out[1].fraction == undecided.fraction)


def test_nothing_runs_when_every_label_is_decided():
    def never(states):
        raise AssertionError("a labelling run for decided attractors")
    attractors = [on_the_circle("quasi_periodic")]
    assert label_on_longer_runs(as_system(RING), attractors, never) is attractors
