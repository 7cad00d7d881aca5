"""What the tables of a run file must satisfy together (docs/run_files.md): the ``[model]`` table against its
preset, every grid value against the model (axis by axis, never the whole grid's parameter matrix), a ``seed``
axis, and what the finite-N network (``[finite]``) refuses. :func:`~.runfile.from_dict` calls these after each
table has been parsed on its own (:mod:`.tables`); a mistake is a :class:`~meanfield.errors.ConfigError` naming
the key, the value and what is allowed."""
from __future__ import annotations

import numpy as np

from ...errors import ConfigError
from ...model.layout import batch_parameters
from ...presets import preset, preset_keys
from .tables import MODEL_AXES, check_keys

#: The preset of a ``[model]`` table that names none.
DEFAULT_PRESET = "paper"


def build_model(model_table: dict, seed=None):
    """The :class:`~meanfield.model.spec.ModelSpec` of a ``[model]`` table (preset and overrides), for weight
    realisation ``seed`` of a ``seed`` grid axis when given."""
    table = dict(model_table)
    if seed is not None:
        table["seed"] = seed
    return preset(table.pop("preset", DEFAULT_PRESET), **table)


def parse_model_table(table) -> dict:
    """The ``[model]`` table with its keys checked against the preset's and ``control.<gain>`` keys flat."""
    if not isinstance(table, dict):
        raise ConfigError(f"model = {table!r} is not allowed: must be a table")
    name = table.get("preset", DEFAULT_PRESET)
    table = dict(check_keys(table, ("preset", "control") + preset_keys(name), f"model (preset = {name!r})"))
    if isinstance(table.get("control"), dict):
        table.update({f"control.{k}": v for k, v in table.pop("control").items()})
    return table


def check_axes(model, axes) -> None:
    """Every value of every parameter axis is valid for ``model``, checked axis by axis with the other axes at
    their first value (what :func:`~meanfield.model.layout.batch_parameters` checks is per value or per key), so
    the kernel parameters of the whole grid are never built."""
    varied = [a for a in axes if a.name not in MODEL_AXES]
    for axis in varied:
        n = len(axis.values)
        batch_parameters(model, {a.name: a.array if a is axis else np.repeat(a.array[:1], n) for a in varied})


def check_model_axes(run, preset_name: str) -> None:
    """A ``seed`` axis needs a preset with a seed and no continuation along it; every seed's model is built
    (and so checked) here."""
    if run._seed_axis is None:
        return
    if "seed" not in preset_keys(preset_name):
        raise ConfigError(f"grid.seed is not allowed with preset {preset_name!r}: its weights are fixed; use preset = "
                          "'reference' or 'random'")
    if run.continuation is not None and run.continuation.axis == "seed":
        raise ConfigError("continuation.axis = 'seed' is not allowed: seeds are independent weight realisations; "
                          "continue along a parameter axis")
    for seed in run._seed_axis.values:
        build_model(run.model_table, seed)


def check_finite_run(run, data: dict, model) -> None:
    """Refuse what does not apply to the finite network (docs/model.md §6.3)."""
    if run.lyapunov:
        raise ConfigError(f"lyapunov = {data.get('lyapunov')!r} is not allowed with [finite]: Lyapunov exponents "
                          "are not defined for the sampled network; set lyapunov = false")
    if run.continuation is not None:
        raise ConfigError("continuation is not allowed with [finite]: every finite point starts from x0 = W^o[0]")
    if run.attractors is not None:
        raise ConfigError("attractors is not allowed with [finite]: the census runs the mean field")
    if run.start.kind != "checkpoint":
        raise ConfigError(f"start = {data.get('start')!r} is not allowed with [finite]: the finite network "
                          "starts from x0 = W^o[0] and the mean field from the aligned start (docs/model.md §6.3)")
    if run.device != "cpu":
        raise ConfigError(f"backend = {run.backend!r} is not allowed with [finite]: the finite network runs on "
                          "the CPU; use backend = 'cpu'")
    need = model.context + 2 + run.finite.aligned_steps
    if run.steps < need:
        raise ConfigError(f"steps = {run.steps} is not allowed with [finite]: need steps >= L + 2 + "
                          f"finite.aligned_steps = {need}")
