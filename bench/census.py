"""Cost of the attractor census on the paper's β_o grid, end to end, against the kernel alone on the same
trajectories.

Usage: python bench/census.py [--run runs/paper_census_quick.toml] [--repeat 2]

The quick census (runs/paper_census_quick.toml: 401 β_o on [0, 3] × 64 uniform random starts × 20 000 steps, the
last 1 000 recorded and fingerprinted, chained along β_o), measured in one run after a warm-up that fills the
numba cache:

* census: ``meanfield sweep RUN -o TMP --force`` as a user runs it — the CLI, a fresh local Dask cluster of one
  single-threaded worker per core, both stages (the censuses of every point, then the chain), the HDF5 file;
  wall time, and the CPU time of the whole process tree (client and workers);
* peer: ``simulate_batch`` alone on the same trajectories (the same starts at every β_o, the attention row's
  last 1 000 rows recorded) in this process on all cores: the kernel and nothing else.

* start-up: the same command on a 2-point census of 600 steps — starting the cluster, loading the compiled
  kernels, creating the file — so that the workers' computing time is the census's CPU time minus this.

Prints all three, the kernel's share of the census's computing time (peer CPU / (census CPU − start-up CPU)),
the dry-run estimate, and the load average before and after.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
import meanfield as mf  # noqa: E402
from meanfield.sweeps.config.runfile import load_run  # noqa: E402
from meanfield.systems.starts import sample  # noqa: E402

BIN = os.path.dirname(sys.executable)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def census_cli(run_file: str, out: str) -> tuple:
    """(wall s, CPU s of the process tree) of one end-to-end census sweep."""
    cpu, start = children_cpu(), time.perf_counter()
    subprocess.run([f"{BIN}/meanfield", "sweep", run_file, "-o", out, "--force", "--no-progress"], check=True,
                   capture_output=True)
    return time.perf_counter() - start, children_cpu() - cpu


STARTUP = """
name = "startup"
steps = 600
transient = 80
[model]
preset = "paper"
[grid]
beta_o = [1.0, 2.0]
[attractors]
starts = 64
"""


def peer(run) -> tuple:
    """(wall s, CPU s) of simulate_batch alone on the census's trajectories."""
    model, spec = run.model, run.attractors
    betas = run.axes[0].array
    starts = sample(model, spec.starts, spec.sampler, seed=spec.seed)
    cpu, start = time.process_time(), time.perf_counter()
    for lo in range(0, betas.size, 16):                     # 16 values x 64 starts = 1024 lanes per call
        block = betas[lo:lo + 16]
        mf.simulate_batch(model, run.steps, run.transient, parameters={"beta_o": np.repeat(block, spec.starts)},
                          start=starts * block.size, record=("att",), compute=mf.Compute(progress=False))
    return time.perf_counter() - start, time.process_time() - cpu


def dry_run(run_file: str, out: str) -> str:
    text = subprocess.run([f"{BIN}/meanfield", "sweep", run_file, "-o", out, "--dry-run"], check=True,
                          capture_output=True, text=True)
    return next(line.strip() for line in (text.stdout + text.stderr).splitlines() if "time:" in line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default=os.path.join(ROOT, "runs", "paper_census_quick.toml"))
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    run = load_run(args.run)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "census.h5")
        load = os.getloadavg()[0]
        census_cli(args.run, out)                          # warm-up: fills the numba cache
        estimate = dry_run(args.run, os.path.join(tmp, "never.h5"))
        startup_file = os.path.join(tmp, "startup.toml")
        with open(startup_file, "w") as f:
            f.write(STARTUP)
        rows = []
        for _ in range(args.repeat):
            rows.append(("census", *census_cli(args.run, out)))
            rows.append(("peer", *peer(run)))
            rows.append(("start-up", *census_cli(startup_file, os.path.join(tmp, "startup.h5"))))
    steps = run.n_points * run.attractors.starts * run.steps
    print(f"# {os.cpu_count()} cores; load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"{run.n_points} values x {run.attractors.starts} starts x {run.steps} steps = {steps:.2e} steps")
    for name, wall, cpu in rows:
        rate = "" if name == "start-up" else f"   {steps / wall:.2e} steps/s"
        print(f"{name:8s} wall {wall:6.1f} s   CPU {cpu:6.1f} s{rate}")
    best = {name: min(r[2] for r in rows if r[0] == name) for name in ("census", "peer", "start-up")}
    share = best["peer"] / (best["census"] - best["start-up"])
    print(f"kernel share of the workers' computing time: {share:.0%} (best CPU times: peer / (census - start-up))")
    print(f"dry-run estimate: {estimate}")


if __name__ == "__main__":
    main()
