"""Time the basin map of the paper model at β_o = 2.8 (runs/paper_basins.toml's plane and lengths) in one
process, and print a checksum of its ids, so that two trees can be compared (PYTHONPATH=OTHER_TREE):

    python bench/basin_map.py [--resolution 512]

The census (64 starts, the run file's lengths) runs first and is not timed; the map is timed twice (the first
run loads the kernels) and the second time printed.
"""
import argparse
import hashlib
import time

import numpy as np

import meanfield as mf
import meanfield.census
from meanfield.census.basins import KnownAttractors, basin_map, plane


def options() -> tuple:
    """(census, map) keywords as the tree on the path takes them: records since the options redesign, keywords
    before it (so that two trees run the same computation)."""
    if hasattr(meanfield.census, "Tolerances"):
        tolerances = meanfield.census.Tolerances(max_period=32)
        return {"tolerances": tolerances}, {"tolerances": tolerances, "compute": mf.Compute(chunk=16)}
    return {"max_period": 32}, {"max_period": 32, "chunk": 16}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resolution", type=int, default=512)
    args = ap.parse_args()
    model = mf.presets.paper(beta_o=2.8)
    census_options, map_options = options()
    census = mf.find_attractors(model, 64, 40000, 39000, **census_options)
    known = KnownAttractors.from_census(census)
    the_plane = plane(model, resolution=args.resolution)
    for _ in range(2):
        start = time.perf_counter()
        ids = basin_map(model, known, the_plane, 1000, 936, **map_options)
        seconds = time.perf_counter() - start
    digest = hashlib.sha1(np.ascontiguousarray(ids).tobytes()).hexdigest()[:12]
    print(f"{args.resolution}^2 basin map: {seconds:.2f} s, {len(census.attractors)} attractors, ids sha1 {digest}")


if __name__ == "__main__":
    main()
