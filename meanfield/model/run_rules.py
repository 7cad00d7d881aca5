"""The rules of a run's length and where it runs, whoever asks for the run: :func:`meanfield.simulation.simulate_batch`
and the run files (:mod:`meanfield.sweeps.config.runfile`) both check them here, once.

* iterations t = 0 .. steps - 1, recorded from t = transient on, so transient < steps (docs/model.md §3.2);
* ``lyapunov``: False (none), True (all of them) or the k >= 1 leading exponents; all is L·M for
  the map and L·M + 2M (window, integral, previous error) when the run has a PID controller (docs/model.md §4,
  §5.2), and an uncontrolled point of such a run has -inf for the 2M controller directions;
* exponents start from a full window: a start of depth D needs D + (iterations before t = transient) >= L
  (docs/model.md §4.2);
* a backend is ``cpu``, ``cuda`` (= ``cuda:float64``) or ``cuda:float32``.
"""
from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from .spec import ModelSpec, require_int

#: The PID gains: a run with one of them non-zero, or varied, has a controller (docs/model.md §5.1).
CONTROL_GAINS = ("kp", "ki", "kd")
#: Backend names a run may name, and the (device, dtype) each means.
BACKENDS = {"cpu": ("cpu", "float64"), "cuda": ("cuda", "float64"), "cuda:float64": ("cuda", "float64"),
            "cuda:float32": ("cuda", "float32")}


def check_lengths(steps, transient) -> tuple[int, int]:
    """(steps, transient) as ints with steps >= 1 and 0 <= transient < steps."""
    steps = require_int("steps", steps, 1)
    transient = require_int("transient", transient, 0)
    if transient >= steps:
        raise ConfigError(f"transient = {transient} is not allowed: must be < steps = {steps}")
    return steps, transient


def has_controller(model: ModelSpec, varied) -> bool:
    """Whether a run has a PID controller (docs/model.md §5): its model has a non-zero gain, or a gain is among the
    parameters ``varied`` over its points (names as :func:`meanfield.model.layout.batch_parameters` takes them).
    A property of the run, not of its values, so every batch of a sweep asks for the same exponents."""
    control = model.control
    return any(getattr(control, gain) != 0 for gain in CONTROL_GAINS) or any(
        name in varied for name in (f"control.{gain}" for gain in CONTROL_GAINS))


#: ``lyapunov=True`` (all exponents) is refused above this many: each tangent vector costs about as much as a
#: step of the map at many features, so all L·M of a wide window would take hundreds of times the run itself.
ALL_EXPONENTS_LIMIT = 128


def exponent_count(lyapunov, model: ModelSpec, varied=()) -> int:
    """The number of Lyapunov exponents ``lyapunov`` asks for: False or None 0, True all of them (L·M, or
    L·M + 2M when the run has a controller, :func:`has_controller`) where they are at most
    :data:`ALL_EXPONENTS_LIMIT`, an integer k in 1 .. all."""
    full = model.context * model.n_features + (2 * model.n_features if has_controller(model, varied) else 0)
    if lyapunov is False or lyapunov is None:
        return 0
    if lyapunov is True:
        if full > ALL_EXPONENTS_LIMIT:
            raise ConfigError(f"lyapunov = True is not allowed: it asks for all {full} exponents "
                              f"(L·M = {model.context}·{model.n_features}), more than {ALL_EXPONENTS_LIMIT}; give "
                              f"the number of leading exponents wanted, e.g. lyapunov = 8")
        return full
    return require_int("lyapunov", lyapunov, 1, full)


def check_full_window(n_exponents: int, depth, transient: int, context: int, pre_steps: int = 0) -> None:
    """Exponents need a full window (D = L = ``context``) when they start at t = ``transient``: a start of
    ``depth`` rows (the smallest of a batch) grows by one row per iteration, ``pre_steps`` more of them when a
    continuation pre-runs each start (docs/model.md §7.3)."""
    depth = int(np.min(depth))
    if n_exponents and depth + pre_steps + transient < context:
        raise ConfigError(f"lyapunov = {n_exponents}: the window must be full (D = L = {context}) when exponents "
                          f"start at t = transient = {transient}; a start of depth {depth} needs transient >= "
                          f"{context - depth - pre_steps} (docs/model.md §4.2)")


def parse_backend(name) -> tuple[str, str]:
    """(device, dtype) of a backend name of :data:`BACKENDS`."""
    if name not in BACKENDS:
        raise ConfigError(f"backend = {name!r} is not allowed: available backends are {list(BACKENDS)}")
    return BACKENDS[name]
