"""The onset study: the rest cycle's stability along β_o (:func:`~meanfield.studies.onset.rest_stability`) over
the number of features M, the context length L and weight seeds of the random preset (docs/onset.md).

A study file (TOML, ``runs/studies/``) names the grid::

    name = "onset_scaling"
    features = [3, 4, 6, 8]        # M
    contexts = [4, 8]              # L (pe_bits = ceil(log2 L), at least 2)
    seeds = 8                      # weight seeds 0..seeds-1
    semantic_bits = 128            # N_se
    interval = [0.25, 6.0]         # β_o followed

Results: an HDF5 file that ``xarray.open_dataset(path, engine="h5netcdf")`` reads, dims (features, contexts, seed),
one variable per field of :class:`~meanfield.studies.onset.RestCycleStability` (:data:`VARIABLES`, each with its
``long_name``), the settings and a provenance record in the attributes. Finished models go to a journal beside the
output (``OUT.partial.jsonl``) as they finish, so an interrupted study resumes where it stopped.
"""
from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass

import numpy as np

from ..errors import AnalysisError, ConfigError
from .study_file import finish, journal_path, journal_rows, read_study

#: The keys of a study file and their defaults (None: required).
KEYS = {"name": None, "features": None, "contexts": None, "seeds": 8, "semantic_bits": 128,
        "interval": [0.25, 6.0]}
#: The stored variables (docs/onset.md §1) and their long names; "kind" is also "unstable_at_start" (the rest
#: cycle is not stable at the interval's start) or "not_followed" (the continuation met a bend sharper than its
#: smallest step, docs/onset.md §5).
VARIABLES = {
    "beta_c": "first loss of stability of the rest cycle (beta_o; NaN: none in the interval)",
    "kind": "kind of that loss: neimark_sacker, flip, fold, branch_point or none (also unstable_at_start, "
            "not_followed)",
    "rotation_number": "arg(mu)/2pi of the critical pair at a Neimark-Sacker onset (turns per L steps)",
    "crossover": "beta_o of the deepest minimum of 1 - max|mu| (real leading mu > 0) before the onset",
    "closest_approach": "that minimum of 1 - max|mu|",
    "mirror_birth": "beta_o of the saddle-node where the cycle found from -A is born",
    "mirror_modulus": "max|mu| of that cycle where it was found (< 1: a second L-periodic attractor)",
    "points": "continuation points on the rest cycle's branch",
}
#: Largest sizes a study accepts (the random preset's limits: docs/model.md §3.3).
MAX_FEATURES, MAX_CONTEXT = 256, 256


@dataclass(frozen=True)
class OnsetStudy:
    """A checked study file (module docstring)."""

    name: str
    features: tuple[int, ...]
    contexts: tuple[int, ...]
    seeds: int
    semantic_bits: int
    interval: tuple[float, float]

    def tasks(self):
        """(M, L, seed) in the order they run: small windows first, so the table fills early."""
        return sorted(((m, c, s) for m in self.features for c in self.contexts for s in range(self.seeds)),
                      key=lambda t: (t[0] * t[1], t))

    def model(self, n_features: int, context: int, seed: int):
        """The random preset of one task (pe_bits = max(2, ceil(log2 L)))."""
        from ..presets import random
        return random(seed=seed, n_features=n_features, semantic_bits=self.semantic_bits, context=context,
                      pe_bits=max(2, (context - 1).bit_length()))


def _ints(key, value, low, high):
    if (not isinstance(value, list) or not value
            or not all(isinstance(v, int) and not isinstance(v, bool) and low <= v <= high for v in value)):
        raise ConfigError(f"{key} = {value!r} is not allowed: must be a non-empty list of integers in "
                          f"[{low}, {high}]")
    return tuple(value)


def load_study(path) -> OnsetStudy:
    """Read and check a study file: a ConfigError of one line naming the key, the value and what is allowed."""
    values = read_study(path, KEYS, "a study file")
    for key in ("seeds", "semantic_bits"):
        value = values[key]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 4096:
            raise ConfigError(f"{key} = {value!r} is not allowed: must be an integer in [1, 4096]")
    interval = values["interval"]
    if (not isinstance(interval, list) or len(interval) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in interval)
            or not 0 < interval[0] < interval[1]):
        raise ConfigError(f"interval = {interval!r} is not allowed: must be [start, stop] with 0 < start < stop")
    return OnsetStudy(values["name"], _ints("features", values["features"], 1, MAX_FEATURES),
                      _ints("contexts", values["contexts"], 2, MAX_CONTEXT), values["seeds"], values["semantic_bits"],
                      (float(interval[0]), float(interval[1])))


def run_study(study: OnsetStudy, output: str, progress: bool = True):
    """Run every task not yet in the journal, then write ``output`` and remove the journal; returns the
    dataset (:func:`study_dataset`)."""
    from .onset import UnstableStart, rest_stability

    journal = journal_path(output)
    done = journal_rows(journal, lambda row: (row["features"], row["contexts"], row["seed"]))
    tasks = study.tasks()
    start = time.monotonic()
    with open(journal, "a", encoding="utf-8") as handle:
        for index, (m, c, s) in enumerate(tasks):
            if (m, c, s) in done:
                continue
            try:
                found = rest_stability(study.model(m, c, s), study.interval)
                row = {key: getattr(found, "onset" if key == "beta_c" else key) for key in VARIABLES}
            except UnstableStart:
                row = {key: math.nan for key in VARIABLES} | {"kind": "unstable_at_start", "points": 0}
            except AnalysisError:                  # a bend sharper than the continuation's smallest step
                row = {key: math.nan for key in VARIABLES} | {"kind": "not_followed", "points": 0}
            row.update(features=m, contexts=c, seed=s)
            handle.write(json.dumps(row) + "\n")
            handle.flush()
            done[(m, c, s)] = row
            if progress:
                print(f"onset: {index + 1}/{len(tasks)}  M = {m:3d}  L = {c:3d}  seed {s}:  β_c = "
                      f"{row['beta_c']:.6f} ({row['kind']}), crossover {row['crossover']:.6f}  "
                      f"[{time.monotonic() - start:.0f} s]", file=sys.stderr, flush=True)
    return finish(study_dataset(study, done), output, "onset")


def study_dataset(study: OnsetStudy, rows: dict):
    """The results as an xarray Dataset (module docstring): the study's settings in its attributes, a
    ``long_name`` on every variable."""
    import xarray

    shape = (len(study.features), len(study.contexts), study.seeds)
    arrays = {key: np.full(shape, "", dtype=object) if key == "kind" else np.full(shape, np.nan) for key in VARIABLES}
    for (m, c, s), row in rows.items():
        if m in study.features and c in study.contexts and s < study.seeds:
            at = (study.features.index(m), study.contexts.index(c), s)
            for key in arrays:
                arrays[key][at] = row[key]
    coords = {"features": ("features", list(study.features), {"long_name": "features M"}),
              "contexts": ("contexts", list(study.contexts), {"long_name": "context length L"}),
              "seed": ("seed", np.arange(study.seeds), {"long_name": "weight seed of the random preset"})}
    dims = ("features", "contexts", "seed")
    attrs = {"name": study.name, "semantic_bits": study.semantic_bits, "interval": list(study.interval),
             "preset": "random", "parameter": "beta_o"}
    return xarray.Dataset({key: (dims, value.astype(str) if key == "kind" else value, {"long_name": VARIABLES[key]})
                           for key, value in arrays.items()}, coords=coords, attrs=attrs)


#: The kinds of a first loss of stability and their short names in the tables.
KIND_NAMES = (("neimark_sacker", "NS"), ("flip", "PD"), ("fold", "F"), ("branch_point", "BP"), ("none", "none"),
              ("unstable_at_start", "unstable at start"), ("not_followed", "not followed"))


def mean_and_error(values: np.ndarray) -> tuple[float, float, int]:
    """(mean, standard error, count) of the finite ``values`` (NaN for what a count of 0 or 1 cannot give)."""
    found = np.asarray(values, dtype=np.float64)
    found = found[np.isfinite(found)]
    mean = float(found.mean()) if found.size else math.nan
    error = float(found.std(ddof=1) / math.sqrt(found.size)) if found.size > 1 else math.nan
    return mean, error, int(found.size)


def _mean_and_error(values: np.ndarray, digits: int = 3) -> str:
    """"mean ± standard error" of the finite ``values`` ("—" where none)."""
    mean, error, count = mean_and_error(values)
    if count == 0:
        return "—"
    return f"{mean:.{digits}f}" + (f" ± {error:.{digits}f}" if count > 1 else "")


def _table(dataset, cell) -> list[str]:
    lines = ["| M | " + " | ".join(f"L = {c}" for c in dataset.contexts.values) + " |",
             "|---|" + "---|" * dataset.sizes["contexts"]]
    for m in dataset.features.values:
        cells = [cell(dataset.sel(features=m, contexts=c)) for c in dataset.contexts.values]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return lines


def onset_table(dataset) -> str:
    """Two Markdown tables, one row per M and one column per L: the first loss of stability β_c (mean ± standard
    error over the seeds that have one, with the kinds' counts), and the crossover (mean ± SE of its β_o, the
    number of seeds that have one, the median closest approach) with the mirror cycle's birth (mean ± SE)."""
    def onset(cell):
        kinds = cell.kind.values
        counts = ", ".join(f"{int(np.sum(kinds == kind))} {short}" for kind, short in KIND_NAMES
                           if np.any(kinds == kind))
        return f"{_mean_and_error(cell.beta_c.values)} ({counts})"

    def crossover(cell):
        found = np.isfinite(cell.crossover.values)
        if not found.any():
            return "—"
        return (f"{_mean_and_error(cell.crossover.values)} ({int(found.sum())}; "
                f"{np.median(cell.closest_approach.values[found]):.1e}); birth "
                f"{_mean_and_error(cell.mirror_birth.values)}")

    return "\n".join(["First loss of stability, β_c:", "", *_table(dataset, onset), "",
                      "Crossover β_o (seeds with one; median closest approach 1 − max|μ|); mirror cycle's birth:", "",
                      *_table(dataset, crossover), "", *scaling_summary(dataset)])


#: The scaling fits use the models with at least this many features (docs/onset.md §4).
FIT_FROM = 12


def scaling_summary(dataset) -> list[str]:
    """For β_c and the crossover, over the models with M ≥ :data:`FIT_FROM` that have one: the exponent of a
    least-squares fit of log β_o against log M (± its standard error), and the mean ± SE of β_o·√M per L and
    pooled, with the number of models."""
    lines = []
    large = dataset.sel(features=[m for m in dataset.features.values if m >= FIT_FROM])
    if large.sizes["features"] == 0:
        return lines
    for name, label in (("beta_c", "β_c"), ("crossover", "crossover")):
        values = large[name]
        m = np.broadcast_to(large.features.values[:, None, None], values.shape)
        found = np.isfinite(values.values)
        if found.sum() < 3 or len(np.unique(m[found])) < 2:
            continue
        fit, cov = np.polyfit(np.log(m[found]), np.log(values.values[found]), 1, cov=True)
        scaled = values * np.sqrt(large.features)
        per_context = ", ".join(f"L = {c}: {_mean_and_error(scaled.sel(contexts=c).values.ravel(), 2)}"
                                for c in large.contexts.values)
        lines.append(f"{label} (M ≥ {FIT_FROM}, {int(found.sum())} models): exponent of M {fit[0]:.3f} ± "
                     f"{np.sqrt(cov[0, 0]):.3f}; {label}·√M = {_mean_and_error(scaled.values.ravel(), 2)} "
                     f"({per_context})")
    return lines
