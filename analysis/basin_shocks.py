"""The minimal critical shock of every attractor of the paper model at β_o = 2.8 (docs/basins.md §8): the sweep
of runs/paper_basins.toml (its census and its 512² basin map), then, for every attractor of the stored census,
:func:`meanfield.census.minimal_critical_shock` from the stored state on it, with the search of the table in
docs/basins.md §8 (24 phases × 64 directions, radius 0.1 in 50 steps, tol 1e-3), the pushed starts run and
assigned as the map's starts are (the run file's ``[basins]`` steps and transient).

Usage: python analysis/basin_shocks.py [--results results] [--directions 64] [--radius 0.1] [--scan 50]
Runs (or resumes) the sweep into RESULTS/paper_basins.h5 and prints one line per attractor (minutes on 2 cores).
"""
import argparse
import os

import numpy as np

import meanfield as mf
from meanfield.census.shock import ShockSearch, minimal_critical_shock
from meanfield.model.state import State
from meanfield.sweeps.execute.basins import known_attractors, point_model
from meanfield.sweeps.store import read_sweep

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results")
    parser.add_argument("--directions", type=int, default=64)
    parser.add_argument("--radius", type=float, default=0.1)
    parser.add_argument("--scan", type=int, default=50)
    args = parser.parse_args()
    run = mf.load_run(os.path.join(HERE, "..", "runs", "paper_basins.toml"))
    path = mf.sweep(run, os.path.join(args.results, "paper_basins.h5"), progress=True)
    names = ("census_period", "census_scale", "census_summary", "census_points", "census_att", "census_pe",
             "census_depth", "census_fraction")
    census = {name: values[0] for name, values in read_sweep(path, names).arrays.items()}
    known = known_attractors(census)
    model, values = point_model(run)
    model = model.replace(**values)
    tolerances = mf.census.Tolerances(max_period=run.attractors.max_period, cycle_rtol=run.attractors.rtol[0],
                                      measure_rtol=run.attractors.rtol[1])
    search = ShockSearch(radius=args.radius, directions=args.directions, scan=args.scan, phases=24, tol=1e-3,
                         tolerances=tolerances)
    for k in range(len(known.period)):
        state = State(att=census["census_att"][k, :census["census_depth"][k]], pe=census["census_pe"][k])
        shock = minimal_critical_shock(model, known, k, state, run.basins.steps, run.basins.transient, search=search)
        exits = shock.radii[np.isfinite(shock.radii)]
        print(f"#{k} (period {known.period[k]}, {census['census_fraction'][k]:.1%} of the census): shock "
              f"{shock.radius:.4f} at phase {shock.phase} -> #{shock.destination}; {exits.size} / {shock.radii.size} "
              f"rays leave within {args.radius}, median exit {np.median(exits) if exits.size else np.nan:.3f}")


if __name__ == "__main__":
    main()
