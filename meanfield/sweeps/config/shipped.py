"""The run files shipped with the package (the repository's ``runs/``, installed as package data under
``meanfield/runs``), found by name: ``meanfield sweep paper_fig3_quick`` and ``mf.load_run("paper_fig3_quick")``
read ``runs/paper_fig3_quick.toml`` from the installed package, ``meanfield onset onset_scaling_quick`` the study
file ``runs/studies/onset_scaling_quick.toml``; ``meanfield runs`` lists both (docs/run_files.md). A path to a
file of one's own works as before."""
from __future__ import annotations

import os
import re
from importlib.resources import files

from ...errors import ConfigError

#: What a name of a shipped run looks like: no path separator, no suffix, nothing a line of TOML needs.
NAME = re.compile(r"[A-Za-z0-9_-]+")


#: Where the study files are, inside the shipped runs.
STUDIES = "studies"


def _folder(folder: str):
    return files("meanfield") / "runs" / folder if folder else files("meanfield") / "runs"


def shipped_runs(folder: str = "") -> dict[str, str]:
    """{name: first comment line} of every shipped run file (of the study files with ``folder`` =
    :data:`STUDIES`), sorted by name."""
    runs = _folder(folder)
    found = {}
    for entry in sorted(runs.iterdir(), key=lambda e: e.name) if runs.is_dir() else ():
        if entry.name.endswith(".toml"):
            lines = entry.read_text(encoding="utf-8").splitlines()
            found[entry.name[:-len(".toml")]] = next((line.lstrip("#").strip() for line in lines
                                                      if line.startswith("#")), "")
    return found


def is_run_name(text: str) -> bool:
    """Whether ``text`` (neither an existing path nor a line of TOML) names a shipped run."""
    return NAME.fullmatch(text) is not None and not os.path.exists(text)


def shipped_run(name: str, folder: str = "") -> str:
    """The text of the shipped run file ``name`` (a study file with ``folder`` = :data:`STUDIES`); a ConfigError
    naming the shipped ones when there is none."""
    names = shipped_runs(folder)
    if name not in names:
        kind = "study" if folder else "run"
        raise ConfigError(f"{kind} file {name!r} is not allowed: no such file, and no {kind} of that name is "
                          f"shipped with meanfield (meanfield runs lists them: {', '.join(names)})")
    return (_folder(folder) / f"{name}.toml").read_text(encoding="utf-8")


__all__ = ["STUDIES", "shipped_runs", "is_run_name", "shipped_run"]
