"""Are the results of this tree bitwise those of an earlier commit? (bench/RESULTS.md, "Same results after the
redesign".)

Runs one set of computations with the working tree's package and with each named commit's (a git worktree on
PYTHONPATH, in a process of its own), and compares every array bitwise (``tobytes``, NaNs included):

* single runs (``mf.simulate``): the paper model at β_o = 1.26, 1.3 and 2.8, a PID-controlled one and the sigma
  model, every observable, three Lyapunov exponents with their block sums;
* a batch (``mf.simulate_batch``) of 16 β_o values with exponents;
* a sweep file (``mf.sweep``, 8 points in chunks of 3 on a Dask client): every dataset of the HDF5 file;
* the located bifurcations of the rest cycle over β_o ∈ [1.2, 1.3] (``mf.bifurcations``): kind, value, period,
  multipliers;
* a census (``mf.find_attractors``) at β_o = 2.8: assignment, each attractor's label, period, fraction, state and
  points.

    python bench/same_results.py f87706a 85d6349
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TINY_SWEEP = """
name = "same_results"
steps = 3000
transient = 1000
lyapunov = 2
chunk = 3
[model]
preset = "paper"
[grid]
beta_o = { start = 1.0, stop = 2.8, num = 8 }
[record]
tail = 200
"""


def _arrays(prefix: str, obj, out: dict) -> None:
    """Every array-like field of ``obj`` (a dataclass, named tuple or dict) into ``out`` under ``prefix``."""
    fields = obj if isinstance(obj, dict) else {k: getattr(obj, k) for k in dir(obj) if not k.startswith("_")}
    for key, value in fields.items():
        if isinstance(value, np.ndarray) or isinstance(value, (int, float, str)) and not callable(value):
            out[f"{prefix}.{key}"] = np.asarray(value)


def compute(workdir: str) -> dict:
    """The computations, with whatever ``meanfield`` is importable: {name: array}."""
    import h5py
    from dask.distributed import Client

    import meanfield as mf
    out = {}
    paper = mf.presets.paper
    # the options as this tree's API takes them (records since the options redesign, keywords before)
    quiet = {"compute": mf.Compute(progress=False)} if hasattr(mf, "Compute") else {"progress": False}
    models = {"paper_1.26": paper(beta_o=1.26), "paper_1.3": paper(beta_o=1.3), "paper_2.8": paper(beta_o=2.8),
              "pid": paper(beta_o=1.3).replace(control=mf.Control(kp=0.3, ki=0.1, kd=0.2, rho=0.95)),
              "sigma": mf.presets.sigma()}
    for name, model in models.items():
        traj = mf.simulate(model, 6000, 1000, lyapunov=3)
        for key in ("att", "mo", "mo_se", "mv", "mq", "mk", "lyapunov", "lyapunov_stderr", "lyapunov_blocks"):
            out[f"simulate.{name}.{key}"] = np.asarray(getattr(traj, key))
        _arrays(f"simulate.{name}.final", traj.final_state, out)
    batch = mf.simulate_batch(paper(), 4000, 1000, parameters={"beta_o": np.linspace(1.0, 3.0, 16)}, lyapunov=3,
                              record=("mo_se", "att"), **quiet)
    for key, value in batch.records.items():
        out[f"batch.records.{key}"] = np.asarray(value)
    for key in ("lyapunov", "lyapunov_stderr", "lyapunov_blocks", "final_att", "final_depth"):
        out[f"batch.{key}"] = np.asarray(getattr(batch, key))
    path = os.path.join(workdir, "sweep.h5")
    with Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None) as client:
        on_client = {"place": mf.Place(client=client)} if hasattr(mf, "Place") else {"client": client}
        mf.sweep(mf.load_run(TINY_SWEEP), path, progress=False, **on_client)
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(f"sweep.{name}", obj[...])
                     if isinstance(obj, h5py.Dataset) else None)
    for i, b in enumerate(mf.bifurcations(paper(beta_o=1.2), "beta_o", (1.2, 1.3))):
        out[f"bifurcations.{i}"] = np.array([b.kind, repr(b.value), b.period])
        out[f"bifurcations.{i}.multipliers"] = np.asarray(b.multipliers)
    census = mf.find_attractors(paper(beta_o=2.8), 64, 20_000, 10_000, **quiet)
    out["census.assignment"] = np.asarray(census.assignment)
    for i, a in enumerate(census.attractors):
        out[f"census.{i}"] = np.array([a.label, str(a.period), repr(a.fraction)])
        out[f"census.{i}.state"] = np.asarray(a.state.att if hasattr(a.state, "att") else a.state)
        out[f"census.{i}.points"] = np.asarray(a.points)
    return out


def run_at(tree: str) -> dict:
    """``compute`` in a fresh process with the package of ``tree`` first on the path."""
    with tempfile.TemporaryDirectory() as work:
        result = os.path.join(work, "out.pkl")
        env = dict(os.environ, PYTHONPATH=tree)
        code = (f"import sys, pickle; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
                f"import same_results as s; pickle.dump(s.compute({work!r}), open({result!r}, 'wb'))")
        subprocess.run([sys.executable, "-c", code], env=env, cwd=work, check=True)
        with open(result, "rb") as f:
            return pickle.load(f)


def same(x: np.ndarray, y: np.ndarray) -> bool:
    """Bitwise equal: dtype, shape and bytes (object arrays, such as HDF5's variable-length strings, hold
    pointers: their elements are compared instead)."""
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    return x.tolist() == y.tolist() if x.dtype == object else x.tobytes() == y.tobytes()


def differences(a: dict, b: dict) -> list:
    """Names whose arrays differ, or that only one side has (marked "only here" / "only there")."""
    return sorted([f"{n} (only here)" for n in set(a) - set(b)] + [f"{n} (only there)" for n in set(b) - set(a)]
                  + [n for n in set(a) & set(b) if not same(a[n], b[n])])


def main(revisions) -> int:
    here = run_at(ROOT)
    print(f"this tree: {len(here)} arrays")
    status = 0
    for rev in revisions:
        tree = tempfile.mkdtemp(prefix=f"same_results_{rev}_")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-f", tree, rev], check=True,
                       capture_output=True)
        try:
            other = run_at(tree)
        finally:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", tree], check=True)
        differ = differences(here, other)
        groups = sorted({name.split(".")[0] for name in differ})
        print(f"{rev}: {len(other)} arrays, {len(differ)} differ" + (f" (in {', '.join(groups)})" if differ else
                                                                     " — bitwise identical"))
        for name in differ[:40]:
            print(f"    {name}")
        status |= bool(differ)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
