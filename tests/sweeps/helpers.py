"""Helpers of the sweep tests (tiny run files, reading and comparing sweep files)."""
from __future__ import annotations

import json
import os
import sys

import h5py
import numpy as np

BIN = os.path.dirname(sys.executable)

TINY = """
name = "tiny"
steps = {steps}
transient = {transient}
lyapunov = {lyapunov}
chunk = {chunk}

[model]
preset = "paper"

[grid]
beta_o = {{ start = 1.0, stop = 2.6, num = {num} }}

[record]
observables = ["mo_se", "att"]
tail = 5

[reductions]
observable = "mo_se"
bins = 40
band_pairs = [[0, 1], [1, 0]]
band_tol = 0.01
band_cap = 8
"""


def tiny_text(num=12, steps=400, transient=200, lyapunov=3, chunk=4, extra=""):
    return TINY.format(num=num, steps=steps, transient=transient, lyapunov=lyapunov, chunk=chunk) + extra



def interrupted_sweep(text: str, path, after: int, **options) -> None:
    """A sweep of ``text`` into ``path`` stopped by Ctrl-C (a KeyboardInterrupt from the progress callback) once
    ``after`` points are done; ``options`` go to :func:`meanfield.sweep`."""
    import pytest

    import meanfield as mf

    def interrupt(done, total):
        if done >= after:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        mf.sweep(text, path, progress=False, callback=interrupt, **options)


def read_all(path) -> dict:
    """Every per-point dataset of a sweep file (those with the grid first), as numpy arrays."""
    with h5py.File(path, "r") as f:
        axes = json.loads(f.attrs["axes"])
        return {name: obj[...] for name, obj in f.items()
                if isinstance(obj, h5py.Dataset) and name not in axes and obj.shape[:len(axes)] == f["done"].shape}


def done_count(path) -> int:
    """Finished points of a sweep file another process may be writing (0 while it does not exist yet)."""
    try:
        with h5py.File(path, "r", locking=False) as f:
            return int(f["done"][...].sum())
    except (OSError, KeyError):
        return 0


def assert_same(a: dict, b: dict):
    assert sorted(a) == sorted(b)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
