"""One answer per attractor: every census attractor against ``classify`` of a long run from its own state.

For each model and parameter value, a census (64 uniform starts, 40 000 steps, 20 000 transient, exponents),
then for every attractor it reports a run of 200 000 steps from its representative ``state`` (transient
50 000, exponents) classified by :func:`meanfield.analysis.classify`. An attractor *agrees* when the label
and, for cycles, the period are equal; it is a *transient* when the long run's last 20 000 steps are not
identified with it by the census's identity rules (docs/attractors.md §2). Unresolved counts are reported
next to the agreement (an attractor the census labels ``unresolved``; starts in no attractor).

    python bench/census_agreement.py              # the full table (bench/RESULTS.md, about 15 min on 2 cores)
    python bench/census_agreement.py --quick      # a few values of each set
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import meanfield as mf
from meanfield.analysis import classify
from meanfield.analysis.fingerprint import fingerprint
from meanfield.analysis.grouping import assign_to_attractors

STARTS, STEPS, TRANSIENT = 64, 40_000, 20_000
LONG, LONG_TRANSIENT = 200_000, 50_000


def sets(quick: bool) -> list:
    """(name, model factory, values, seeds) of the benchmark."""
    take = (lambda v: v[::10]) if quick else (lambda v: v)
    return [
        ("paper, β_o ∈ [1.23, 1.33]", lambda b: mf.presets.paper(beta_o=b), take(np.linspace(1.23, 1.33, 41)),
         (0,) if quick else (0, 1)),
        ("paper, β_o ∈ [2.0, 3.0]", lambda b: mf.presets.paper(beta_o=b), take(np.linspace(2.0, 3.0, 11)), (0,)),
        ("sigma preset, β_o", lambda b: mf.presets.sigma(beta_o=b), take(np.linspace(40.0, 100.0, 3)), (0,)),
        ("random M = 2 (seed 3), β_o", lambda b: mf.presets.random(n_features=2, seed=3, beta_o=b),
         take(np.linspace(0.5, 3.0, 11)), (0,)),
    ]


def check(model, seed: int) -> list:
    """(census label, census period, classify label, classify period, stays) of every attractor, and the
    census's unsettled fraction."""
    census = mf.find_attractors(model, mf.census.Starts(STARTS, seed=seed), STEPS, TRANSIENT, lyapunov=True)
    rows = []
    for k, a in enumerate(census.attractors):
        traj = mf.simulate(model, LONG, LONG_TRANSIENT, start=a.state, lyapunov=True)
        verdict = classify(traj)
        tail = fingerprint(traj.att[None, -(STEPS - TRANSIENT):])
        known = census.attractors
        where = assign_to_attractors(tail, np.array([b.period for b in known]), np.array([b.scale for b in known]),
                                     np.array([b.summary for b in known]), [b.points for b in known])[0]
        rows.append((a.label, a.period, verdict.label, verdict.period, where == k))
    return rows, census.unsettled_fraction


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="", help="only the sets whose name contains this")
    args = parser.parse_args()
    print("| set | censuses | attractors | agree | disagree | census `unresolved` | transients | "
          "unsettled starts (mean) | time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, factory, values, seeds in (s for s in sets(args.quick) if args.only in s[0]):
        t0 = time.perf_counter()
        n = agree = unresolved = transients = 0
        misses, lost = [], []
        for seed in seeds:
            for value in values:
                rows, left = check(factory(float(value)), seed)
                lost.append(left)
                for label, period, other, other_period, stays in rows:
                    n += 1
                    same = label == other and (label not in ("fixed_point", "periodic") or period == other_period)
                    agree += same
                    unresolved += label == "unresolved"
                    transients += not stays
                    if not same or not stays:
                        misses.append(f"{value:.6g}/seed {seed}: census {label} p{period} vs classify {other} "
                                      f"p{other_period}{'' if stays else ', a transient'}")
        print(f"| {name} | {len(values) * len(seeds)} | {n} | {agree} | {n - agree} | {unresolved} | {transients} | "
              f"{100 * np.mean(lost):.1f} % | {time.perf_counter() - t0:.0f} s |", flush=True)
        for miss in misses:
            print(f"    {miss}", flush=True)


if __name__ == "__main__":
    main()
