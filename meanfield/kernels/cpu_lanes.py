"""CPU backend: the lane step functions of :mod:`.lane_step` over tiles of W points in lockstep, ``prange``
over tiles.

A tile's arrays have the points on their last axis (struct of arrays) and every loop of the step runs over
the lanes innermost, so LLVM's loop vectoriser turns a step into packed (AVX2/AVX-512) arithmetic. Two
things make that happen: the model's dimensions are compile-time constants (one compilation per (L, M, J)),
and :func:`run_tile` is compiled with LLVM's ``noalias`` on its array arguments, which are distinct
allocations — without it LLVM must assume two arrays may overlap and leaves the loops scalar. numba sets
that flag for its own parallel loop bodies; :class:`NoAliasCompiler` sets it through numba's documented
``pipeline_class`` hook.

Points are grouped so that a tile is all uncontrolled or all PID-controlled (the controlled step has more
state), padded with copies of a real point to a multiple of W. A point's arithmetic never reads another
lane, so results are bitwise identical whatever W, the padding, the batch composition, the order or the
number of threads.

On-disk caching: the step functions are closures of :func:`~meanfield.kernels.lane_step.build_steps` that
call each other, and numba keys a closure's cache entry on a pickle of its closure cells — here other
dispatchers, which pickle with a random per-process uuid. Each dispatcher gets a fixed uuid (its qualified
name, the model's dimensions and a digest of the kernel sources), so the key is the same in every process
and worker processes load the compiled kernels instead of recompiling; a changed kernel source changes it.
"""
from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
import hashlib
import pathlib

import numpy as np
from numba import get_num_threads, njit
from numba.core.compiler import Compiler

from .lane_step import build_steps
from .step import CTRL_ROWS, P_KD, P_KI, P_KP

#: Lanes per tile: a multiple of the 8 doubles of an AVX-512 register (bench/throughput.py chose it).
TILE_WIDTH = 32
#: Narrowest tile used for small batches (so that both cores get a tile).
MIN_TILE_WIDTH = 8
_SOURCES = ("lane_step.py", "lane_math.py", "step.py", "cpu_lanes.py")
_DIGEST = hashlib.sha256(b"".join((pathlib.Path(__file__).parent / name).read_bytes()
                                  for name in _SOURCES)).hexdigest()[:16]


class NoAliasCompiler(Compiler):
    """numba's default pipeline with the ``noalias`` flag, which puts LLVM's ``noalias`` on every pointer
    argument (numba does the same for the bodies of its parallel loops). Only for functions whose array
    arguments never overlap."""

    def define_pipelines(self):
        self.state.flags = self.state.flags.copy()
        self.state.flags.noalias = True
        return super().define_pipelines()


def _cached(shape, **options):
    """``njit(cache=True, error_model="numpy", ...)`` with a process-independent uuid (module docstring)."""
    def decorate(function):
        dispatcher = njit(cache=True, error_model="numpy", **options)(function)
        dispatcher._set_uuid(f"meanfield.kernels.cpu_lanes:{function.__qualname__}:{shape}:{_DIGEST}")
        return dispatcher
    return decorate


@functools.lru_cache(maxsize=None)
def tile_kernels(ring: int, n_feat: int, n_patterns: int) -> dict:
    """The lane step functions and the parallel tile loop ``run_tiles`` for L = ``ring``, M = ``n_feat``,
    J = ``n_patterns`` (compiled on first call, then loaded from numba's cache)."""
    shape = f"{ring}x{n_feat}x{n_patterns}"
    steps = build_steps(_cached(shape, pipeline_class=NoAliasCompiler), ring, n_feat, n_patterns,
                        leaf_jit=_cached(shape, forceinline=True))
    run_tile = steps["run_tile"]
    L, M, J = ring, n_feat, n_patterns
    size_uncontrolled, size_controlled = L * M, L * M + 2 * M

    @_cached(shape, nogil=True)
    def run_tile_at(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, controlled, steps, transient,
                    record_every, selection, qr_every, tile, records, block_sums, stats, final_att, final_depth,
                    final_ctrl):
        """Allocate tile ``tile``'s state and scratch and run it (arrays (tiles, ..., W), see :func:`run_batch`)."""
        width = params.shape[2]
        n_vec = block_sums.shape[2]
        size = size_controlled if controlled[tile] else size_uncontrolled
        run_tile(coef, signs, w_pe, params[tile], pe0[tile], att0[tile].copy(), depth0[tile].copy(),
                 ctrl0[tile].copy(), controlled[tile], steps, transient, record_every, selection, qr_every,
                 np.empty((4, L, M, width)), np.empty((J, width)), np.empty((4, M, width)), np.empty((M, width)),
                 np.empty((L, M, width)), np.empty((L, M, width)), np.empty((L, width)), np.empty((M, width)),
                 np.empty((L, M, M, width)), np.empty((L, M, M, width)), np.empty((1, M, M, width)),
                 np.empty((L, M, M, width)), np.empty((n_vec, size, width)), np.empty((M, width)),
                 np.empty((2, width)), np.empty(width), np.empty((size_controlled + 1, width)), records[tile],
                 block_sums[tile], stats[tile], final_att[tile], final_depth[tile], final_ctrl[tile])

    steps["run_tile_at"] = run_tile_at
    return steps


def tile_width(n_points: int) -> int:
    """W for a batch: TILE_WIDTH, narrowed (in steps of 8) so that small batches still give every numba
    thread a tile. Results do not depend on it."""
    per_thread = -(-n_points // max(get_num_threads(), 1))
    return int(min(TILE_WIDTH, max(MIN_TILE_WIDTH, -(-per_thread // 8) * 8)))


def tile_lanes(controlled: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Assign points to lanes: uncontrolled points first, then controlled ones, each group padded to a
    multiple of ``width`` with copies of its first point. Returns (point of every lane (tiles·W,), lane of
    every point (n,))."""
    lanes, lane_of = [], np.empty(len(controlled), dtype=np.int64)
    for group in (np.flatnonzero(~controlled), np.flatnonzero(controlled)):
        if len(group):
            lane_of[group] = sum(len(x) for x in lanes) + np.arange(len(group))
            lanes.append(np.concatenate([group, np.full(-len(group) % width, group[0])]))
    return (np.concatenate(lanes) if lanes else np.zeros(0, dtype=np.int64)), lane_of


def run_batch(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, steps, transient, record_every, selection,
              n_exponents, qr_every, n_blocks, width=None):
    """Iterate every point of a batch (arguments and returns as :func:`meanfield.kernels.step.build_steps`'s
    ``run_batch``): records (n, rows, n_sel, M), final windows (n, L, M), final depths (n,), block sums
    (n, B, k), final control state (n, 3, M), control statistics (n, 2). ``width`` = tile width W
    (default :func:`tile_width`)."""
    n_points, ring, n_feat = att0.shape
    width = tile_width(n_points) if width is None else int(width)
    controlled = (params[:, P_KP] != 0.0) | (params[:, P_KI] != 0.0) | (params[:, P_KD] != 0.0)
    lanes, lane_of = tile_lanes(controlled, width)
    n_tiles = len(lanes) // width

    def to_tiles(a, dtype=np.float64):
        a = np.asarray(a, dtype=dtype)[lanes]
        return np.ascontiguousarray(np.moveaxis(a.reshape((n_tiles, width) + a.shape[1:]), 1, -1))

    n_rec = (steps - transient + record_every - 1) // record_every
    selection = np.ascontiguousarray(selection, dtype=np.int64)
    out = (np.empty((n_tiles, n_rec, len(selection), n_feat, width)), np.empty((n_tiles, ring, n_feat, width)),
           np.empty((n_tiles, width), dtype=np.int64), np.zeros((n_tiles, n_blocks, n_exponents, width)),
           np.empty((n_tiles, 3, n_feat, width)), np.empty((n_tiles, 2, width)))
    records, final_att, final_depth, block_sums, final_ctrl, stats = out
    args = (np.ascontiguousarray(coef), np.ascontiguousarray(signs), np.ascontiguousarray(w_pe), to_tiles(params),
            to_tiles(pe0), to_tiles(att0), to_tiles(depth0, np.int64),
            to_tiles(np.concatenate([ctrl0, np.zeros((n_points, CTRL_ROWS - 3, n_feat))], axis=1)),
            np.ascontiguousarray(controlled[lanes[::width]]), int(steps), int(transient), int(record_every),
            selection, int(qr_every))
    run_tile_at = tile_kernels(ring, n_feat, signs.shape[0])["run_tile_at"]

    def run(tile):
        run_tile_at(*args, tile, records, block_sums, stats, final_att, final_depth, final_ctrl)

    threads = min(get_num_threads(), n_tiles)
    if threads > 1:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(run, range(n_tiles)))
    else:
        for tile in range(n_tiles):
            run(tile)
    tile_of, lane = lane_of // width, lane_of % width
    return tuple(a[tile_of, ..., lane] for a in out)
