"""Sweep overhead and the full Figure 3 cost on this machine.

1. raw: ``simulate_batch`` + reductions + classification evidence on every point of runs/paper_fig3_quick.toml in this
   process (numba prange over all cores, kernel compiled beforehand) — the peer, measured in the same run;
2. sweep, warm: ``meanfield.sweep`` of the same run on a LocalCluster whose workers already compiled the kernel
   (Dask scheduling + transfer + HDF5 writing overhead), with the client's peak RSS (a CLI subprocess);
3. sweep, cold: ``meanfield sweep`` as a user runs it (cluster start-up and per-worker compilation included);
4. full Figure 3, worker side: core-seconds per point of runs/paper_fig3.toml (175 000 steps, 12 exponents
   over the last 75 000) for the kernel, the reductions and the classification evidence, measured in a warm
   worker of the cluster of item 5 (one thread, one task's worth of evenly spaced points);
5. full Figure 3, end to end: ``meanfield sweep`` of runs/paper_fig3.toml (all 4001 points) on a local cluster
   started and warmed beforehand (the start is not counted), next to the estimate ``--dry-run`` gave before it,
   with the CPU time of the workers and of the CLI process (on a shared machine the workers' CPU time over the
   cores is the estimate of the idle-machine wall time), the kernel's share of the workers' CPU, and the size
   of the file.

Run: ``python bench/sweep.py`` (about 2 minutes on 2 idle cores). Prints a table and the load average before and
after (the machine may be shared: the ratios in the quick part are the robust numbers).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
from dask.distributed import Client

import meanfield as mf
from meanfield.analysis.reductions import reduce_points
from meanfield.sweeps.execute.cluster import local_cluster
from meanfield.sweeps.execute.evidence import point_evidence
from meanfield.sweeps.execute.tasks import compute_chunk

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
QUICK = os.path.join(ROOT, "runs", "paper_fig3_quick.toml")
FULL = os.path.join(ROOT, "runs", "paper_fig3.toml")
#: The CLI as a user runs it (``meanfield`` is ``python -m meanfield``), with this checkout importable.
CLI = [sys.executable, "-m", "meanfield"]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))


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
    """Serial seconds of the analysis evidence every sweep task also computes (meanfield.sweeps.execute.evidence)."""
    sample = np.arange(0, run.n_points, 10)
    result = mf.simulate_batch(run.model, run.steps, run.transient, parameters=run.parameters(sample),
                               lyapunov=run.lyapunov, record=run.recorded)
    t = time.perf_counter()
    point_evidence(result.records[run.reductions.observable], result.lyapunov, result.lyapunov_stderr)
    return (time.perf_counter() - t) * run.n_points / len(sample)


def warm(run):
    """Load the kernel in this process (run on every worker by ``Client.run``) through a sweep task, which
    also sets the worker's thread count."""
    compute_chunk(run.replace(steps=200, transient=100), np.arange(2), np.full(2, -1))


def cpu_of_children() -> float:
    """User + system CPU seconds of this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def worker_costs(run):
    """Core-seconds per point of the kernel, the reductions and the evidence over one task's worth
    (``run.chunk``) of evenly spaced points, as a sweep task runs them (one thread, the same tile width)."""
    import numba
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        params = run.parameters(np.linspace(0, run.n_points - 1, run.chunk).astype(int))
        t = time.thread_time()
        result = mf.simulate_batch(run.model, run.steps, run.transient, parameters=params, lyapunov=run.lyapunov,
                                   record=run.recorded)
        kernel = time.thread_time() - t
        observed = result.records[run.reductions.observable]
        t = time.thread_time()
        reduce_points(observed, run.reductions)
        reductions = time.thread_time() - t
        t = time.thread_time()
        point_evidence(observed, result.lyapunov, result.lyapunov_stderr)
        evidence_time = time.thread_time() - t
    finally:
        numba.set_num_threads(threads)
    return kernel / run.chunk, reductions / run.chunk, evidence_time / run.chunk


def dry_run_estimate(path) -> str:
    """The time ``meanfield sweep PATH --dry-run`` announces (its "time:" line), as a user would plan with it."""
    out = subprocess.run([*CLI, "sweep", path, "--dry-run"], check=True, capture_output=True, text=True, env=ENV)
    line, = (line for line in out.stdout.splitlines() if line.strip().startswith("time:"))
    return line.split(" on ")[0].replace("time:", "").strip()


def main():
    cores = len(os.sched_getaffinity(0))
    load_before = os.getloadavg()
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

        with local_cluster(cores) as cluster, Client(cluster) as client:
            t = time.perf_counter()
            client.run(warm, quick)                      # compile the kernel in every worker
            rows.append(("worker start-up compile, all workers in parallel (s)", time.perf_counter() - t))
            t = time.perf_counter()
            mf.sweep(quick, os.path.join(tmp, "api.h5"), place=mf.Place(client=client), progress=False)
            t_warm = time.perf_counter() - t
            rows.append(("sweep, warm workers, API (s)", t_warm))
            rows.append(("  overhead ratio sweep/raw - 1 (goal <= 10 %)", f"{100 * (t_warm / t_raw - 1):+.1f} %"))
            peer = t_raw + t_evidence / cores
            rows.append(("  same, raw + evidence as the peer", f"{100 * (t_warm / peer - 1):+.1f} %"))
            t = time.perf_counter()
            subprocess.run([*CLI, "sweep", QUICK, "-o", os.path.join(tmp, "cli.h5"), "--scheduler",
                            cluster.scheduler_address, "--no-progress"], check=True, capture_output=True, env=ENV)
            rows.append(("sweep, warm workers, CLI subprocess (s)", time.perf_counter() - t))
            rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            rows.append(("  client peak RSS, CLI process (MB)", rss / 1024))
        t = time.perf_counter()
        subprocess.run([*CLI, "sweep", QUICK, "-o", os.path.join(tmp, "cold.h5"), "--no-progress"],
                       check=True, capture_output=True, env=ENV)
        rows.append(("sweep, cold: `meanfield sweep runs/paper_fig3_quick.toml` (s)", time.perf_counter() - t))
        rows.append(("  quick file size (MB)", os.path.getsize(os.path.join(tmp, "cold.h5")) / 1e6))

        estimate = dry_run_estimate(FULL)
        with local_cluster(cores) as cluster, Client(cluster) as client:
            client.run(warm, full)
            first = next(iter(client.scheduler_info()["workers"]))
            kernel, reductions, evidence_cost = client.run(worker_costs, full, workers=[first])[first]
            per_point = kernel + reductions + evidence_cost
            rows.append(("full Fig. 3, worker side per point (core-s, in a worker): kernel", kernel))
            rows.append(("  reductions (histogram, bands, distinct values)", reductions))
            rows.append(("  classification evidence (period, 0-1 test, spectra, sections)", evidence_cost))
            rows.append(("  kernel share of that work", f"{100 * kernel / per_point:.0f} %"))
            rows.append((f"  sum x 4001 points / {cores} cores (min)", per_point * full.n_points / cores / 60))
            workers_cpu = sum(client.run(time.process_time).values())
            client_cpu = cpu_of_children()
            t = time.perf_counter()
            subprocess.run([*CLI, "sweep", FULL, "-o", os.path.join(tmp, "full.h5"), "--scheduler",
                            cluster.scheduler_address, "--no-progress"], check=True, capture_output=True, env=ENV)
            t_full = time.perf_counter() - t
            workers_cpu = sum(client.run(time.process_time).values()) - workers_cpu
            client_cpu = cpu_of_children() - client_cpu
        rows.append((f"full Fig. 3, end to end: `meanfield sweep` of its {full.n_points} points, warm cluster (s)",
                     t_full))
        rows.append(("  the dry run's estimate beforehand", estimate))
        rows.append(("  CPU: workers' (s) / the CLI client's (s)", f"{workers_cpu:.1f} / {client_cpu:.1f}"))
        rows.append(("  kernel share of the workers' CPU (kernel per point x points / workers' CPU)",
                     f"{100 * kernel * full.n_points / workers_cpu:.0f} %"))
        rows.append(("  workers' CPU per point (core-s)", workers_cpu / full.n_points))
        rows.append(("quick Fig. 3: the dry run's estimate", dry_run_estimate(QUICK)))
        rows.append(("full Fig. 3: file size, no tails (MB)", os.path.getsize(os.path.join(tmp, "full.h5")) / 1e6))
    width = max(len(r[0]) for r in rows)
    print(f"# {cores} cores; load average {load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"{'measurement'.ljust(width)}  value")
    for name, value in rows:
        print(f"{name.ljust(width)}  {value if isinstance(value, str) else f'{value:.3g}'}")


if __name__ == "__main__":
    main()
