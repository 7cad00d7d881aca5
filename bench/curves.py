"""Time to trace a two-parameter bifurcation curve of the paper model (docs/bifurcations.md §10).

Usage: python bench/curves.py [points]
Locates the rest cycle's Neimark–Sacker point along β_o at β_att = 2.2 (not timed), then continues it over
β_att ∈ [0.5, 7] with the arclength step chosen so that the curve has about ``points`` (default 500) points,
and prints the wall time, the number of points, the time per point and the codim-2 points found. The machine's
load (``uptime``) is printed before and after: the machine is shared.
"""
import subprocess
import sys
import time

import meanfield as mf


def main(points: int = 500) -> None:
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    model = mf.presets.paper()
    point, = mf.bifurcations(model, "beta_o", (1.24, 1.245))
    mf.bifurcation_curve(model, point, "beta_att", (2.1, 2.3), max_points=2)       # warm-up (numba, caches)
    start = time.perf_counter()
    curve = mf.bifurcation_curve(model, point, "beta_att", (0.5, 7.0), max_step=6.5 / (points - 1),
                                 max_points=points)
    seconds = time.perf_counter() - start
    print(f"{len(curve.values)} points in {seconds:.1f} s ({1e3 * seconds / len(curve.values):.0f} ms a point)")
    for special in curve.special:
        print(f"  {special.kind}: beta_o = {special.values[0]:.10f}, beta_att = {special.values[1]:.10f}")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
