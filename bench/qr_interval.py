"""How far Lyapunov exponents move when the tangent vectors are re-orthonormalised every r steps instead of
every step (the reason simulate's default is r = 1; see docs/classification.md §6, "What float64 can resolve").

Usage: python bench/qr_interval.py
Prints, per r, the largest change of any of the 12 exponents and of the 4 leading ones over 11 values of
β_o in [0.05, 3], and the time ratio against r = 1 measured in the same run.
"""
import time

import numpy as np

import meanfield as mf


def main():
    model = mf.presets.paper()
    betas = np.array([0.05, 0.5, 1.0, 1.25, 1.266, 1.3, 1.35, 1.4, 2.0, 2.5, 3.0])

    def run(r):
        start = time.perf_counter()
        out = mf.simulate_batch(model, 6000, 2000, parameters={"beta_o": betas},
                                lyapunov=mf.Lyapunov(qr_every=r), record=())
        return out.lyapunov, time.perf_counter() - start

    run(1)
    every, base = run(1)
    print(f"{'r':>3s} {'max |Δλ| (all 12)':>18s} {'max |Δλ| (λ1..λ4)':>18s} {'at β_o':>7s} {'time / r=1':>11s}")
    for r in (2, 3, 4, 8, 16):
        lam, seconds = run(r)
        diff = np.abs(lam - every)
        worst = betas[np.nanargmax(np.nanmax(diff, axis=1))]
        print(f"{r:3d} {np.nanmax(diff):18.3g} {np.nanmax(diff[:, :4]):18.3g} {worst:7.3g} {seconds / base:11.2f}")


if __name__ == "__main__":
    main()
