"""Sweep overhead and the full Figure 3 cost on this machine.

1. raw: ``simulate_batch`` + reductions + classification evidence on every point of runs/paper_fig3_quick.toml in this process (numba
   prange over all cores, kernel compiled beforehand) — the peer, measured in the same run;
2. sweep, warm: ``meanfield.sweep`` of the same run on a LocalCluster whose workers already compiled the kernel
   (Dask scheduling + transfer + HDF5 writing overhead), with the client's peak RSS (a CLI subprocess);
3. sweep, cold: ``meanfield sweep`` as a user runs it (cluster start-up and per-worker compilation included);
4. full Figure 3: seconds per point of runs/paper_fig3.toml measured on a few points × 4001 / cores, and the
   exact size of its file (every dataset is allocated when the file is created).

Run: ``python bench/sweep.py`` (about 5 minutes on 2 cores). Prints a table.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

import meanfield as mf
from meanfield.kernels.reductions import reduce_points
from meanfield.sweeps.evidence import point_evidence
from meanfield.sweeps.store import create_sweep
from meanfield.sweeps.cluster import local_cluster

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
QUICK = os.path.join(ROOT, "runs", "paper_fig3_quick.toml")
FULL = os.path.join(ROOT, "runs", "paper_fig3.toml")
BIN = os.path.dirname(sys.executable)


def raw(run) -> float:
    """simulate_batch + reductions + classification evidence on all points in this process: the same work a
    sweep's workers do, without Dask or HDF5 (the reductions and evidence run in this one process)."""
    params = run.parameters(np.arange(run.n_points))
    t = time.perf_counter()
    result = mf.simulate_batch(run.model, run.steps, run.transient, parameters=params, lyapunov=run.lyapunov,
                               record=run.recorded)
    observed = result.records[run.reductions.observable]
    reduce_points(observed, run.reductions)
    point_evidence(observed, result.lyapunov, result.lyapunov_stderr)   # the classification evidence workers store
    return time.perf_counter() - t


def evidence(run) -> float:
    """Serial seconds of the analysis evidence every sweep task also computes (meanfield.sweeps.evidence)."""
    sample = np.arange(0, run.n_points, 10)
    result = mf.simulate_batch(run.model, run.steps, run.transient, parameters=run.parameters(sample),
                               lyapunov=run.lyapunov, record=run.recorded)
    t = time.perf_counter()
    point_evidence(result.records[run.reductions.observable], result.lyapunov, result.lyapunov_stderr)
    return (time.perf_counter() - t) * run.n_points / len(sample)


def warm(run):
    """Compile the kernel in this process (run on every worker by ``Client.run``)."""
    mf.simulate_batch(run.model, 200, 100, parameters=run.parameters([0, 1]), lyapunov=True, record=run.recorded)


def main():
    cores = len(os.sched_getaffinity(0))
    quick, full = mf.load_run(QUICK), mf.load_run(FULL)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        warm(quick)
        rows.append(("kernel compile, one process (s)", time.perf_counter() - t))
        t_raw = raw(quick)
        rows.append((f"raw simulate_batch + reductions, {quick.n_points} quick points, {cores} threads (s)", t_raw))
        t_evidence = evidence(quick)
        rows.append(("  + sweeps.evidence.point_evidence, all points / cores (s)", t_evidence / cores))

        from dask.distributed import Client
        with local_cluster(cores) as cluster, Client(cluster) as client:
            t = time.perf_counter()
            client.run(warm, quick)                      # compile the kernel in every worker
            rows.append(("worker start-up compile, all workers in parallel (s)", time.perf_counter() - t))
            t = time.perf_counter()
            mf.sweep(quick, os.path.join(tmp, "api.h5"), client=client, progress=False)
            t_warm = time.perf_counter() - t
            rows.append(("sweep, warm workers, API (s)", t_warm))
            rows.append(("  overhead ratio sweep/raw - 1 (goal <= 10 %)", f"{100 * (t_warm / t_raw - 1):+.1f} %"))
            peer = t_raw + t_evidence / cores
            rows.append(("  same, raw + evidence as the peer", f"{100 * (t_warm / peer - 1):+.1f} %"))
            t = time.perf_counter()
            subprocess.run([f"{BIN}/meanfield", "sweep", QUICK, "-o", os.path.join(tmp, "cli.h5"), "--scheduler",
                            cluster.scheduler_address, "--no-progress"], check=True, capture_output=True)
            rows.append(("sweep, warm workers, CLI subprocess (s)", time.perf_counter() - t))
            rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            rows.append(("  client peak RSS, CLI process (MB)", rss / 1024))
        t = time.perf_counter()
        subprocess.run([f"{BIN}/meanfield", "sweep", QUICK, "-o", os.path.join(tmp, "cold.h5"), "--no-progress"],
                       check=True, capture_output=True)
        rows.append(("sweep, cold: `meanfield sweep runs/paper_fig3_quick.toml` (s)", time.perf_counter() - t))
        rows.append(("  quick file size (MB)", os.path.getsize(os.path.join(tmp, "cold.h5")) / 1e6))

        sample = np.linspace(0, full.n_points - 1, 4).astype(int)
        params = full.parameters(sample)
        t = time.perf_counter()
        mf.simulate_batch(full.model, full.steps, full.transient, parameters=params, lyapunov=full.lyapunov,
                          record=full.recorded)
        per_point = (time.perf_counter() - t) * cores / len(sample)     # the batch used all cores
        rows.append(("full Fig. 3: one point, 175000 steps + 12 exponents, one core (s)", per_point))
        rows.append((f"full Fig. 3: estimate, 4001 points on {cores} cores (min)",
                     per_point * full.n_points / cores / 60))
        create_sweep(os.path.join(tmp, "full.h5"), full).close()
        rows.append(("full Fig. 3: file size, no tails (MB)", os.path.getsize(os.path.join(tmp, "full.h5")) / 1e6))
    width = max(len(r[0]) for r in rows)
    print(f"{'measurement'.ljust(width)}  value")
    for name, value in rows:
        print(f"{name.ljust(width)}  {value if isinstance(value, str) else f'{value:.2f}'}")


if __name__ == "__main__":
    main()
