"""The onset study: β_c of the rest cycle (:func:`~meanfield.studies.onset.rest_onset`) over the number of features
M, the context length L and weight seeds of the random preset (docs/onset.md).

A study file (TOML, ``runs/studies/``) names the grid::

    name = "onset_scaling"
    features = [3, 4, 6, 8]        # M
    contexts = [4, 8]              # L (pe_bits = ceil(log2 L), at least 2)
    seeds = 8                      # weight seeds 0..seeds-1
    semantic_bits = 128            # N_se
    interval = [0.25, 6.0]         # β_o searched
    resolution = 1e-6

Results: an HDF5 file that ``xarray.open_dataset(path, engine="h5netcdf")`` reads, dims (features, contexts, seed),
variables ``beta_c`` (NaN where no bifurcation in the interval), ``kind`` (also "none", and
"unstable_at_start" where the rest cycle is not stable at the interval's start), ``rotation_number`` and ``critical``
(|μ| of the critical multiplier just below). Finished models go to a journal beside the output
(``OUT.partial.jsonl``) as they finish, so an interrupted study resumes where it stopped.
"""
from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from .study_file import finish, journal_path, journal_rows, read_study

#: The keys of a study file and their defaults (None: required).
KEYS = {"name": None, "features": None, "contexts": None, "seeds": 8, "semantic_bits": 128,
        "interval": [0.25, 6.0], "resolution": 1e-6}
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
    resolution: float

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
    resolution = values["resolution"]
    if isinstance(resolution, bool) or not isinstance(resolution, (int, float)) or not 0 < resolution < 1:
        raise ConfigError(f"resolution = {resolution!r} is not allowed: must be a number in (0, 1)")
    return OnsetStudy(values["name"], _ints("features", values["features"], 1, MAX_FEATURES),
                      _ints("contexts", values["contexts"], 2, MAX_CONTEXT), values["seeds"], values["semantic_bits"],
                      (float(interval[0]), float(interval[1])), float(resolution))


def run_study(study: OnsetStudy, output: str, progress: bool = True):
    """Run every task not yet in the journal, then write ``output`` and remove the journal; returns the
    dataset (:func:`study_dataset`)."""
    from .onset import UnstableStart, rest_onset

    journal = journal_path(output)
    done = journal_rows(journal, lambda row: (row["features"], row["contexts"], row["seed"]))
    tasks = study.tasks()
    start = time.monotonic()
    with open(journal, "a", encoding="utf-8") as handle:
        for index, (m, c, s) in enumerate(tasks):
            if (m, c, s) in done:
                continue
            try:
                onset = rest_onset(study.model(m, c, s), study.interval, resolution=study.resolution)
                row = {"beta_c": onset.value, "kind": onset.kind, "rotation_number": onset.rotation_number,
                       "critical": abs(onset.critical)}
            except UnstableStart:
                row = {"beta_c": math.nan, "kind": "unstable_at_start", "rotation_number": math.nan,
                       "critical": math.nan}
            row.update(features=m, contexts=c, seed=s)
            handle.write(json.dumps(row) + "\n")
            handle.flush()
            done[(m, c, s)] = row
            if progress:
                print(f"onset: {index + 1}/{len(tasks)}  M = {m:3d}  L = {c:3d}  seed {s}:  β_c = "
                      f"{onset.value:.6f} ({onset.kind})  [{time.monotonic() - start:.0f} s]", file=sys.stderr,
                      flush=True)
    return finish(study_dataset(study, done), output)


def study_dataset(study: OnsetStudy, rows: dict):
    """The results as an xarray Dataset (module docstring), the study's settings in its attributes."""
    import xarray

    shape = (len(study.features), len(study.contexts), study.seeds)
    arrays = {"beta_c": np.full(shape, np.nan), "rotation_number": np.full(shape, np.nan),
              "critical": np.full(shape, np.nan), "kind": np.full(shape, "", dtype=object)}
    for (m, c, s), row in rows.items():
        if m in study.features and c in study.contexts and s < study.seeds:
            at = (study.features.index(m), study.contexts.index(c), s)
            for key in arrays:
                arrays[key][at] = row[key]
    coords = {"features": list(study.features), "contexts": list(study.contexts), "seed": np.arange(study.seeds)}
    dims = ("features", "contexts", "seed")
    attrs = {"name": study.name, "semantic_bits": study.semantic_bits, "interval": list(study.interval),
             "resolution": study.resolution, "preset": "random", "parameter": "beta_o"}
    return xarray.Dataset({key: (dims, value.astype(str) if key == "kind" else value)
                           for key, value in arrays.items()}, coords=coords, attrs=attrs)


def onset_table(dataset) -> str:
    """β_c mean ± standard error over seeds, one row per M, one column per L (Markdown), with the kinds' counts."""
    lines = ["| M | " + " | ".join(f"L = {c}" for c in dataset.contexts.values) + " |",
             "|---|" + "---|" * dataset.sizes["contexts"]]
    for m in dataset.features.values:
        cells = []
        for c in dataset.contexts.values:
            beta = dataset.beta_c.sel(features=m, contexts=c).values
            kinds = dataset.kind.sel(features=m, contexts=c).values
            found = beta[np.isfinite(beta)]
            cell = "—" if found.size == 0 else f"{found.mean():.3f}" + (
                f" ± {found.std(ddof=1) / math.sqrt(found.size):.3f}" if found.size > 1 else "")
            counts = {short: int(np.sum(kinds == kind)) for kind, short in
                      (("neimark_sacker", "NS"), ("fold", "F"), ("period_doubling", "PD"), ("none", "none"),
                       ("unstable_at_start", "unstable at start"))}
            cell += " (" + ", ".join(f"{n} {short}" for short, n in counts.items() if n) + ")"
            cells.append(cell)
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
