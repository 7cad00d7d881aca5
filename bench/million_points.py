"""A million-point sweep: the file's and the journal's size, the time end to end and the client's rates
(bench/RESULTS.md, "A million-point sweep").

1. paired: ``meanfield sweep`` of a 300 x 300 (beta_att, beta_o) grid of the paper model with ``steps = 20`` (compute
   negligible: the bookkeeping is measured) and the default chunk, by this tree and by an earlier commit (a git
   worktree on PYTHONPATH), alternating: wall time, points/s, file and journal bytes per point;
2. the 1000 x 1000 grid by this tree: the same numbers;
3. the client's two jobs apart, in this process, on the 1000 x 1000 grid's tasks: the writer (a task's compressed
   chunks stored and flushed, its journal index record appended and fsynced, its done flags set and flushed) on
   tasks the workers' function packed beforehand, and the scheduler (a LocalCluster of 2 worker processes running tasks
   that return a packed task's result without computing it); a worker's own rate (packing included);
4. with ``--fig3``: the full Figure 3 (runs/paper_fig3.toml) by both, on clusters started and warmed beforehand:
   wall time and file size.

    python bench/million_points.py 033c79f [--fig3]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRID = """
name = "grid{n}"
steps = 20
transient = 10
[model]
preset = "paper"
[grid]
beta_att = {{ start = 0.0, stop = 6.0, num = {n} }}
beta_o = {{ start = 0.0, stop = 3.0, num = {n} }}
"""


def sweep_cli(tree: str, run: str, out: str, *extra) -> float:
    """Wall seconds of ``meanfield sweep run -o out`` with the package of ``tree``."""
    env = dict(os.environ, PYTHONPATH=tree)
    for path in (out, out + ".journal"):
        if os.path.exists(path):
            os.remove(path)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "meanfield", "sweep", run, "-o", out, "--no-progress", *extra], env=env,
                   check=True, cwd=tree)
    return time.perf_counter() - start


def sizes(out: str, points: int) -> tuple:
    """(file bytes per point, journal bytes / file bytes)."""
    data, journal = os.path.getsize(out), os.path.getsize(out + ".journal")
    return data / points, journal / data


def client_rates(run_text: str, tasks: int = 20) -> dict:
    """Points/s of the writer alone, of the scheduler alone, and of one worker (compute and packing)."""
    import meanfield as mf
    from meanfield.sweeps.execute.cluster import local_cluster
    from meanfield.sweeps.execute.plan import plan
    from meanfield.sweeps.execute.tasks import compute_packed
    from meanfield.sweeps.store import create_sweep, write_packed
    from meanfield.sweeps.store.journal import Journal
    from meanfield.sweeps.store.sweep import checked_names, sweep_layout

    run = mf.load_run(run_text)
    chosen = plan(run, np.zeros(run.n_points, bool))[:tasks]
    compute_packed(run, chosen[0].indices[:1], chosen[0].parents[:1])          # compiles
    start = time.perf_counter()
    results = [compute_packed(run, t.indices, t.parents) for t in chosen]
    worker = sum(len(t.indices) for t in chosen) / (time.perf_counter() - start)
    points = sum(len(r["index"]) for r in results)
    with tempfile.TemporaryDirectory() as tmp:
        f = create_sweep(os.path.join(tmp, "w.h5"), run)
        journal = Journal.start(os.path.join(tmp, "w.h5.journal"), run, checked_names(sweep_layout(run)))
        start = time.perf_counter()
        for result in results:
            write_packed(f, run, result["index"], result["chunks"], journal)
        writer = points / (time.perf_counter() - start)
        journal.close()
        f.close()
    from dask.distributed import Client
    with local_cluster(2) as cluster, Client(cluster) as client:
        futures = client.scatter(results, broadcast=True)                    # results held on the workers
        client.gather([client.submit(lambda r: r, futures[0], pure=False)])   # warm
        start = time.perf_counter()
        done = client.gather([client.submit(lambda r: r, future, pure=False) for future in futures])
        scheduler = sum(len(r["index"]) for r in done) / (time.perf_counter() - start)
    return {"writer": writer, "scheduler": scheduler, "worker": worker, "task_points": points / len(results),
            "task_bytes": sum(sum(len(b) for p in r["chunks"].values() for _, b in p) for r in results) / len(results)}


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the earlier commit to pair with")
    parser.add_argument("--fig3", action="store_true", help="also the full Figure 3, paired")
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()}")
    tmp = tempfile.mkdtemp(prefix="million_")
    old = os.path.join(tmp, f"tree_{args.rev}")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-f", old, args.rev], check=True,
                   capture_output=True)
    try:
        for n in (300, 1000):
            with open(os.path.join(tmp, f"grid{n}.toml"), "w") as fh:
                fh.write(GRID.format(n=n))
        small = os.path.join(tmp, "grid300.toml")
        rows = []
        for tree, label in ((old, args.rev), (ROOT, "this tree"), (old, args.rev), (ROOT, "this tree")):
            out = os.path.join(tmp, "g300.h5")
            seconds = sweep_cli(tree, small, out)
            per_point, ratio = sizes(out, 90_000)
            rows.append((label, seconds, per_point, ratio))
            print(f"300 x 300, {label}: {seconds:.1f} s ({90_000 / seconds:.0f} points/s), {per_point:.0f} B per "
                  f"point, journal {100 * ratio:.0f} % of the file", flush=True)
        out = os.path.join(tmp, "g1000.h5")
        seconds = sweep_cli(ROOT, os.path.join(tmp, "grid1000.toml"), out)
        per_point, ratio = sizes(out, 10 ** 6)
        print(f"1000 x 1000, this tree: {seconds:.1f} s ({1e6 / seconds:.0f} points/s), {per_point:.0f} B per point,"
              f" journal {100 * ratio:.0f} % of the file", flush=True)
        os.remove(out)
        os.remove(out + ".journal")
        rates = client_rates(GRID.format(n=1000))
        print("client alone, 1000 x 1000 tasks of {task_points:.0f} points ({task_bytes:.0f} B each): writer "
              "{writer:.3g} points/s, scheduler {scheduler:.3g} points/s; one worker computes and packs {worker:.3g} "
              "points/s".format(**rates), flush=True)
        if args.fig3:
            fig3 = os.path.join(ROOT, "runs", "paper_fig3.toml")
            for tree, label in ((old, args.rev), (ROOT, "this tree"), (old, args.rev), (ROOT, "this tree")):
                out = os.path.join(tmp, "fig3.h5")
                seconds = sweep_cli(tree, fig3, out)
                print(f"full Figure 3, {label}: {seconds:.1f} s, file {os.path.getsize(out) / 1e6:.1f} MB, journal "
                      f"{os.path.getsize(out + '.journal') / 1e6:.1f} MB", flush=True)
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", old], check=True)
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
