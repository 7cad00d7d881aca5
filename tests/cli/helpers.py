"""Helpers of the command-line tests: small result files written without Dask (compute_chunk + write_points),
the command run in this process, and a snapshot of a directory (what a command created or changed)."""
from __future__ import annotations

import hashlib
import os
import pathlib

import numpy as np

import meanfield as mf
from meanfield.cli import main

RUN = """
name = "{name}"
steps = 700
transient = 400
lyapunov = {lyapunov}
chunk = 4

[model]
preset = "paper"

[grid]
{grid}

[record]
observables = ["mo_se", "att"]
tail = {tail}

[reductions]
observable = "mo_se"
bins = 40
band_pairs = [[0, 1]]
"""


def run_text(name="tiny", grid="beta_o = { start = 1.0, stop = 1.6, num = 4 }", lyapunov=3, tail=300) -> str:
    return RUN.format(name=name, grid=grid, lyapunov=lyapunov, tail=tail)


def write_sweep(path, text) -> str:
    """A complete sweep file of the run ``text`` at ``path``, computed in this process."""
    from meanfield.sweeps.execute.tasks import compute_chunk
    from meanfield.sweeps.store import create_sweep, write_points
    run = mf.load_run(text)
    with create_sweep(path, run) as f:
        indices = np.arange(run.n_points)
        write_points(f, run, indices, compute_chunk(run, indices, np.full(run.n_points, -1)))
    return str(path)


def cli(argv) -> int:
    """The exit status of ``meanfield ARGV`` run in this process (argparse's exits included)."""
    try:
        return main([str(a) for a in argv])
    except SystemExit as exc:
        return exc.code


def snapshot(root) -> dict:
    """{relative path: (size, content hash)} of every file, and every directory, under ``root``."""
    out = {}
    for path in sorted(pathlib.Path(root).rglob("*")):
        key = str(path.relative_to(root))
        if path.is_dir():
            out[key + os.sep] = None
        else:
            out[key] = (path.stat().st_size, path.stat().st_mtime_ns, hashlib.sha1(path.read_bytes()).hexdigest())
    return out


def balanced_quotes(message: str) -> bool:
    """Whether every quotation in a one-line ``message`` is opened and closed: an even number of ``"`` and an
    even number of ``'`` that are quotes. A ``'`` between two letters is an apostrophe (isn't, the file's,
    meanfield's), not a quote; every other ``'`` opens or closes a quotation (Python's repr of a value, 'up')."""
    quotes = [i for i, c in enumerate(message) if c == "'"
              and not (0 < i < len(message) - 1 and message[i - 1].isalpha() and message[i + 1].isalpha())]
    return message.count('"') % 2 == 0 and len(quotes) % 2 == 0
