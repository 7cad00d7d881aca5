"""The dry run's estimate against the real sweep, for runs of different shapes (meanfield/sweeps/execute/estimate.py).

For each run: ``meanfield sweep RUN --dry-run`` (its ``time: ≈ ...`` line and what it is made of), then the same
``meanfield sweep`` for real (a local cluster of 2 workers, as a user runs it, start-up included, kernels already
compiled by the dry run) into a temporary directory, timed on the wall clock, and the ratio estimate / real.

1. many tiny tasks: a 300 × 300 grid of 20-step points of the paper model in chunks of 32 (3000 tasks);
2. the same at 100 × 100 (400 tasks);
3. a middle case: 60 × 60 points of 500 steps in chunks of 32 (120 tasks, compute and per-task costs alike);
4. few heavy tasks: 40 points of 20 000 steps with the 12 Lyapunov exponents in chunks of 8 (5 tasks).

Run: ``python bench/dry_run.py`` (about 3 minutes on 2 cores). Prints a table and the load average before and after
(the estimate is for an otherwise idle machine).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CLI = [sys.executable, "-m", "meanfield", "sweep"]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
PHASE = os.path.join(ROOT, "runs", "phase_diagram.toml")
FIG3 = os.path.join(ROOT, "runs", "paper_fig3_quick.toml")


def grid(n: int, steps: int) -> list:
    return ["--set", f"steps={steps}", "--set", f"transient={steps // 2}", "--set", f"grid.beta_o.num={n}",
            "--set", f"grid.beta_att.num={n}", "--set", "chunk=32"]


CASES = [
    ("300 x 300, 20 steps, chunk 32", PHASE, grid(300, 20)),
    ("100 x 100, 20 steps, chunk 32", PHASE, grid(100, 20)),
    ("60 x 60, 500 steps, chunk 32", PHASE, grid(60, 500)),
    ("40 x 20 000 steps + Lyapunov, chunk 8", FIG3,
     ["--set", "grid.beta_o.num=40", "--set", "chunk=8", "--set", "steps=20000", "--set", "transient=10000"]),
]
UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0}


def estimate(run: str, overrides: list, out: str) -> tuple:
    done = subprocess.run(CLI + [run, "-o", out, "--workers", "2", "--dry-run", *overrides], env=ENV,
                          capture_output=True, text=True, check=True)
    value, unit = re.search(r"time: ≈ ([\d.]+) (s|min|h)", done.stdout).groups()
    made = re.search(r"made of: (.*)", done.stdout).group(1)
    return float(value) * UNITS[unit], made


def real(run: str, overrides: list, out: str) -> float:
    begin = time.perf_counter()
    subprocess.run(CLI + [run, "-o", out, "--workers", "2", "-q", "--no-progress", *overrides], env=ENV, check=True)
    return time.perf_counter() - begin


def main() -> None:
    print("load before:", open("/proc/loadavg").read().strip())
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for n, (name, run, overrides) in enumerate(CASES):
            out = os.path.join(scratch, f"run{n}.h5")
            guess, made = estimate(run, overrides, out)
            assert not os.path.exists(out), "the dry run wrote its output"
            took = real(run, overrides, out)
            rows.append((name, guess, took))
            print(f"{name}: estimate {guess:.1f} s, real {took:.1f} s, ratio {guess / took:.2f}  ({made})", flush=True)
    print("load after:", open("/proc/loadavg").read().strip())
    print(f"\n{'run':40s} {'estimate':>9s} {'real':>7s} {'ratio':>6s}")
    for name, guess, took in rows:
        print(f"{name:40s} {guess:8.1f}s {took:6.1f}s {guess / took:6.2f}")


if __name__ == "__main__":
    main()
