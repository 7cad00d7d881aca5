"""Study files (TOML, ``runs/studies/``) and their journals: the top-level keys checked against the study's before
anything is computed, and the finished tasks read back to resume; shared by the onset study (:mod:`.onset_scan`)
and the curve study (:mod:`.curve_study`)."""
from __future__ import annotations

import json
import os
import tomllib

from ..errors import ConfigError


def read_study(path, keys: dict, kind: str) -> dict:
    """The values of a study file's top-level ``keys`` (key → default, None: required), every other key, a missing
    one, an unreadable file, invalid TOML or a ``name`` that is not a non-empty string refused in one ConfigError
    line; ``kind`` names the study in the messages ("a study file", "a curve study"). ``path`` may also name a
    study file shipped with the package (``onset_scaling_quick``, :mod:`meanfield.sweeps.config.shipped`)."""
    from ..sweeps.config.shipped import STUDIES, is_run_name, shipped_run
    try:
        if is_run_name(str(path)):
            data = tomllib.loads(shipped_run(str(path), STUDIES))
        else:
            with open(path, "rb") as handle:
                data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"study file {str(path)!r} cannot be read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"study file {str(path)!r} is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise ConfigError(f"{unknown[0]} is not allowed: {kind} has the keys {sorted(keys)}")
    values = {key: data.get(key, default) for key, default in keys.items()}
    missing = [key for key, value in values.items() if value is None]
    if missing:
        raise ConfigError(f"{missing[0]} is missing: {kind} needs {[k for k, v in keys.items() if v is None]}")
    if not isinstance(values["name"], str) or not values["name"]:
        raise ConfigError(f"name = {values['name']!r} is not allowed: must be a non-empty string")
    return values


def journal_rows(journal: str, key) -> dict:
    """{key(row): row} of the finished tasks a study's journal (``OUT.partial.jsonl``, one JSON line per task)
    holds; a line cut by a kill is ignored."""
    rows = {}
    if os.path.exists(journal):
        with open(journal, encoding="utf-8") as handle:
            for line in handle:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue
                rows[key(row)] = row
    return rows


def journal_path(output: str) -> str:
    """The journal beside a study's result file; its folder is made."""
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    return f"{output}.partial.jsonl"


def finish(dataset, output: str, action: str):
    """Write the finished study's ``dataset`` to ``output`` (an HDF5 file xarray reads, written beside it and
    renamed into place) with a provenance record of ``action`` in its ``provenance`` attribute, as a sweep file's
    (docs/storage.md §1), and remove the journal; returns the dataset."""
    from ..sweeps.store.provenance import record
    dataset.attrs["provenance"] = json.dumps([record(action)])
    partial = f"{output}.partial"
    dataset.to_netcdf(partial, engine="h5netcdf")
    os.replace(partial, output)
    os.remove(journal_path(output))
    return dataset


__all__ = ["finish", "journal_path", "journal_rows", "read_study"]
