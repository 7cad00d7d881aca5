"""The run files shipped with the package (the repository's ``runs/``, installed as package data under
``meanfield/runs``), found by name: ``meanfield sweep paper_fig3_quick`` and ``mf.load_run("paper_fig3_quick")``
read ``runs/paper_fig3_quick.toml`` from the installed package; ``meanfield runs`` lists them (README, "Run
files"). A path to a file of one's own works as before."""
from __future__ import annotations

import os
import re
from importlib.resources import files

from ...errors import ConfigError

#: What a name of a shipped run looks like: no path separator, no suffix, nothing a line of TOML needs.
NAME = re.compile(r"[A-Za-z0-9_-]+")


def shipped_runs() -> dict[str, str]:
    """{name: first comment line} of every shipped run file, sorted by name."""
    runs = files("meanfield") / "runs"
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


def shipped_run(name: str) -> str:
    """The text of the shipped run file ``name``; a ConfigError naming the shipped runs when there is none."""
    names = shipped_runs()
    if name not in names:
        raise ConfigError(f"run file {name!r} is not allowed: no such file, and no run of that name is shipped "
                          f"with meanfield (meanfield runs lists them: {', '.join(names)})")
    return (files("meanfield") / "runs" / f"{name}.toml").read_text(encoding="utf-8")


__all__ = ["shipped_runs", "is_run_name", "shipped_run"]
