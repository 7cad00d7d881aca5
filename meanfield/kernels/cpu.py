"""CPU backend: the lane step functions of :mod:`.step` over tiles of W points in lockstep, the tiles spread
over numba's thread count.

A tile's arrays have the points on their last axis (struct of arrays) and every loop of the step runs over
the lanes innermost, so LLVM's loop vectoriser turns a step into packed AVX2/AVX-512 arithmetic (docs/model.md
§3.3). Two things make that happen: every sum accumulates lane by lane in an array (:mod:`.step`), and the step
functions are compiled with LLVM's ``noalias`` on their array arguments, which never overlap: without it LLVM must
assume that two arrays may and leaves the loops scalar. numba sets that flag for the bodies of its own parallel
loops; :class:`NoAliasCompiler` sets it through numba's ``pipeline_class`` hook. The functions without loops (exp,
tanh, log, the ring index) are inlined.

Sizes (:func:`tile_kernels`): a model whose window has at most :data:`SPECIALIZED_WINDOW` entries (L·M; the paper's
12) gets kernels compiled for its (L, M, J), whose unrolled loops make the paper model about twice as fast; every
larger model runs on one build that reads L, M and J from its arrays, so a new number of features, context length
or sign-class count compiles nothing (bench/RESULTS.md, "Many features"). Both give the same bits.

Points are grouped so that a tile is all uncontrolled or all PID-controlled (the controlled step has more
state) and each group is padded to a multiple of W with copies of its first point. Chunks of tiles run on a
pool of ``numba.get_num_threads()`` threads (the compiled tile loop releases the GIL), a thread taking the
next chunk when it finishes one; a ``prange`` would compile numba's parallel machinery around the kernel
once more (about 10 s per shape) and split the tiles statically. A point's arithmetic never reads another
lane, so results are bitwise identical whatever W, the padding, the batch composition, the order or the
thread count.

On-disk caching: the step functions are closures of :func:`~meanfield.kernels.step.build_steps` that call
each other, and numba keys a closure's cache entry on a pickle of its closure cells — here other
dispatchers, which pickle with a random per-process uuid. Each dispatcher gets a fixed uuid (its qualified
name, the model's dimensions, the math library and a digest of the kernel sources), so the key is the same in
every process and worker processes load the compiled kernels instead of recompiling (about 15 s per shape);
an edit of any kernel source or of the layout changes it.
"""
from __future__ import annotations

import functools
import hashlib
import math
import pathlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
from numba import get_num_threads
from numba.core.compiler import Compiler

from ..compiled_cache import cached_jit
from ..model.layout import (
    C_RAW,
    CTRL_ROWS,
    CTRL_STATE_ROWS,
    F_K,
    F_Q,
    F_V,
    Batch,
    BatchOutput,
    BatchShared,
    TileInput,
    TileOutput,
)
from ..model.layout import controlled as is_controlled
from . import lane_math
from .step import Steps, build_steps

#: Lanes per tile, measured (one core, paper model): 64 beats 32 by 10-25 %, 128 gains nothing more, 16 loses
#: 15 %, 8 more than half (LLVM's vector loops then fall back to their scalar remainder).
TILE_WIDTH = 64
#: Narrowest tile, used for small batches so that every thread still gets a tile.
MIN_TILE_WIDTH = 16
#: Chunks of tiles per thread (the pool's unit of work).
TASKS_PER_THREAD = 4
#: The largest window (L·M entries) whose kernels are compiled for their own shape (module docstring).
SPECIALIZED_WINDOW = 16


def _libm(jit):
    """The C library's exp, tanh and log (scalar calls): the arithmetic of a kernel without lane math."""
    def libm_exp(x):
        return math.exp(x)

    def libm_tanh(x):
        return math.tanh(x)

    def libm_log(x):
        return math.log(x)

    return jit(libm_exp), jit(libm_tanh), jit(libm_log)


#: Math libraries a CPU kernel can be built with: ``lane`` (:mod:`.lane_math`, vectorised, the default) and
#: ``libm`` (what the kernel computed before lane math; tests and benchmarks compare the two).
MATH_LIBRARIES = {"lane": lane_math.build, "libm": _libm}
_SOURCES = [pathlib.Path(__file__).parent / name for name in ("step.py", "map_stages.py", "tangent_stages.py",
                                                             "tile_stages.py", "lane_sums.py", "lane_math.py",
                                                             "tangent_images.py", "cpu.py")]
_SOURCES.append(pathlib.Path(__file__).parents[1] / "model" / "layout.py")
_DIGEST = hashlib.sha256(b"".join(path.read_bytes() for path in _SOURCES)).hexdigest()[:16]


class NoAliasCompiler(Compiler):
    """numba's default pipeline with its ``noalias`` flag, which puts LLVM's ``noalias`` on every pointer
    argument (numba does the same for the bodies of its parallel loops). Only for functions whose array
    arguments never overlap."""

    def define_pipelines(self):
        self.state.flags = self.state.flags.copy()
        self.state.flags.noalias = True
        return super().define_pipelines()


def _cached(tag, **options):
    """``cached_jit(error_model="numpy", ...)`` (:mod:`meanfield.compiled_cache`) with a process-independent uuid
    (module docstring). The
    tag (shape and math library) also goes into the function's qualified name: numba's symbol for a cached
    function is that name plus a per-process counter, so two builds loaded from the cache into one process
    would otherwise share symbols and call each other's code."""
    def decorate(function):
        function.__qualname__ = f"{function.__qualname__}[{tag}]"
        dispatcher = cached_jit(error_model="numpy", **options)(function)
        dispatcher._set_uuid(f"meanfield.kernels.cpu:{function.__qualname__}:{_DIGEST}")
        return dispatcher
    return decorate


class TileKernels(NamedTuple):
    """What :func:`tile_kernels` returns: ``steps``, the :class:`~meanfield.kernels.step.Steps` of
    :func:`~meanfield.kernels.step.build_steps`, and the CPU's own ``run_tiles`` (a range of tiles of a batch),
    ``window_gradient``, ``attention_jacobian`` and ``controlled_jacobian`` (one point) and ``step_gradients``
    (many points)."""

    steps: Steps
    run_tiles: Callable
    window_gradient: Callable
    attention_jacobian: Callable
    step_gradients: Callable
    controlled_jacobian: Callable


def tile_kernels(ring: int, n_feat: int, n_patterns: int, math_library: str = "lane") -> TileKernels:
    """The CPU's kernels (:class:`TileKernels`) for L = ``ring``, M = ``n_feat``, J = ``n_patterns``: the step
    functions of :func:`~meanfield.kernels.step.build_steps`, ``run_tiles``, ``window_gradient`` and
    ``attention_jacobian``; compiled on first call, then loaded from numba's cache. Windows of more than
    :data:`SPECIALIZED_WINDOW` entries share one build with run-time sizes. One build per process and key (two
    with one tag would share symbols, see :func:`_cached`)."""
    if int(ring) * int(n_feat) > SPECIALIZED_WINDOW:
        return _tile_kernels(0, 0, 0, str(math_library))
    return _tile_kernels(int(ring), int(n_feat), int(n_patterns), str(math_library))


@functools.cache
def _tile_kernels(ring: int, n_feat: int, n_patterns: int, math_library: str) -> TileKernels:
    """:func:`tile_kernels` for one shape, or for every shape with ``ring = n_feat = n_patterns = 0``."""
    tag = f"{ring}x{n_feat}x{n_patterns}_{math_library}" if ring else f"any_{math_library}"
    leaf = _cached(tag, forceinline=True)
    steps = build_steps(_cached(tag, pipeline_class=NoAliasCompiler), ring, n_feat, n_patterns, leaf_jit=leaf,
                        transcendentals=MATH_LIBRARIES[math_library](leaf))
    run_tile = steps.run_tile
    new_scratch = steps.scratch_allocator(np.empty, np.float64, _cached(tag))

    @_cached(tag, nogil=True)
    def run_tiles(shared, tiles, out, first, stop):
        """Run tiles ``first`` .. ``stop`` - 1 of a batch, each with its own state and scratch: ``tiles``
        (:class:`~meanfield.model.layout.TileInput`) and ``out`` (:class:`~meanfield.model.layout.TileOutput`)
        hold every tile's arrays (tiles, ..., W), ``out.records`` (rows, n_sel, M, tiles·W) is a view of the
        per-point array (tiles·W, rows, n_sel, M) that :func:`run_batch` returns."""
        width = tiles.params.shape[2]
        n_rows, n_feat, n_pat = tiles.att.shape[1], tiles.att.shape[2], shared.signs.shape[0]
        n_vec = out.block_sums.shape[2]
        images = ring == 0 and 4 * n_vec < 3 * n_feat   # .tangent_images: 4·K·M a vector against 3·K·M² a token
        n_entries = 3 * (n_rows + 1) * n_feat if images else (n_rows + 2) * n_feat
        dot_rows = 1 + n_vec * (n_vec + 1) // 2 if images else 1
        jac_rows, jac_feat = (n_rows, n_feat) if n_vec > 0 and not images else (1, 1)
        for tile in range(first, stop):
            lanes = slice(tile * width, (tile + 1) * width)
            run_tile(shared, TileInput(tiles.params[tile], tiles.pe0[tile], tiles.att[tile].copy(),
                                       tiles.depth[tile].copy(), tiles.ctrl[tile].copy(), tiles.controlled[tile]),
                     new_scratch(width, max(n_vec, 1), n_rows, n_feat, n_pat, n_entries, n_entries + 1, dot_rows,
                                 jac_rows, jac_feat),
                     TileOutput(out.records[..., lanes], out.block_sums[tile], out.stats[tile], out.final_att[tile],
                                out.final_depth[tile], out.final_ctrl[tile]))

    token_fields, store_token, token_jacobian = steps.token_fields, steps.store_token, steps.token_jacobian
    tanh_slopes = steps.tanh_slopes
    positional_terms, attend, control_step = steps.positional_terms, steps.attend, steps.control_step
    attention_gradient = steps.attention_gradient

    @_cached(tag)
    def gradient_into(coef, signs, w_pe, params, pe0, att0, ctrl, controlled, grad, att_new):
        """grad[d] = ∂a_t/∂A[d] into ``grad`` (L, M, M, lanes) and the new row a_t into ``att_new`` (M, lanes), of
        points as lanes (``params`` (K, lanes), ``pe0`` (L, P, lanes), ``att0`` (L, M, lanes), full windows) as
        run_tile computes them (docs/model.md §4); with ``controlled`` the PID step runs first on ``ctrl``
        (CTRL_ROWS, M, lanes), which receives the clamp gate, and ``att_new`` is the raw output."""
        L, M, J, n = att0.shape[0], att0.shape[1], signs.shape[0], att0.shape[2]
        pe_terms = np.empty((4, L, M, n))
        positional_terms(w_pe, params, pe0, pe_terms)
        h, fields, semantic_o = np.empty((J, n)), np.empty((4, M, n)), np.empty((M, n))
        v_ring, k_ring = np.empty((L, M, n)), np.empty((L, M, n))
        dv_ring, dk_ring, dq = np.empty((L, M, M, n)), np.empty((L, M, M, n)), np.empty((1, M, M, n))
        for d in range(L - 1, -1, -1):
            token_fields(coef, signs, params, att0, d, pe_terms, h, fields, semantic_o, False)
            store_token(fields, v_ring, k_ring, d)
            tanh_slopes(params, h)
            token_jacobian(coef, F_V, signs, params, h, dv_ring, d)
            token_jacobian(coef, F_K, signs, params, h, dk_ring, d)
        token_jacobian(coef, F_Q, signs, params, h, dq, 0)
        p = np.empty((L, n))
        attend(params, fields, v_ring, k_ring, 0, np.full(n, L), p, np.empty((2, n)), att_new)
        if controlled:
            control_step(params, att0, 0, att_new, ctrl, np.empty(n))
            att_new[:] = ctrl[C_RAW]
        attention_gradient(params, fields, v_ring, k_ring, dv_ring, dk_ring, dq, 0, p, att_new, grad,
                           np.empty((M + 2, n)))

    @_cached(tag)
    def window_gradient(coef, signs, w_pe, params, pe0, att0, ctrl, controlled):
        """``gradient_into``'s grad (L, M, M, 1) of one point (arguments as there)."""
        L, M = att0.shape[0], att0.shape[1]
        grad = np.empty((L, M, M, 1))
        gradient_into(coef, signs, w_pe, params, pe0, att0, ctrl, controlled, grad, np.empty((M, 1)))
        return grad

    @_cached(tag)
    def step_gradients(coef, signs, w_pe, params, pe0, att0, grad, att_new):
        """``gradient_into`` of uncontrolled points as lanes (arguments as there; every lane's arithmetic is its
        own, so a point's result does not depend on the others)."""
        ctrl = np.zeros((CTRL_ROWS, att0.shape[1], att0.shape[2]))
        gradient_into(coef, signs, w_pe, params, pe0, att0, ctrl, False, grad, att_new)

    @_cached(tag)
    def attention_jacobian(coef, signs, w_pe, params, pe0, att0):
        """∂A'/∂A (L·M × L·M, row-major flattening) of one point at a full window (arguments as
        ``window_gradient``): the first block row is the attention gradient, the rest the shift."""
        L, M = att0.shape[0], att0.shape[1]
        grad = window_gradient(coef, signs, w_pe, params, pe0, att0, np.zeros((CTRL_ROWS, M, 1)), False)
        jac = np.zeros((L * M, L * M))
        for d in range(L):
            for a in range(M):
                for b in range(M):
                    jac[a, d * M + b] = grad[d, a, b, 0]
        for i in range(M, L * M):
            jac[i, i - M] = 1.0
        return jac

    tangent_push = steps.tangent_push

    @_cached(tag)
    def controlled_jacobian(coef, signs, w_pe, params, pe0, att0, ctrl0):
        """∂x'/∂x ((L+2)·M square) of the PID-controlled map of one point (arguments as ``window_gradient``,
        ``ctrl0`` the (3, M) controller state): :mod:`meanfield.kernels.pid_tangent`, column by column with
        the tangent step of the Lyapunov spectra."""
        ring, n_feat = att0.shape[0], att0.shape[1]
        ctrl = np.zeros((CTRL_ROWS, n_feat, 1))
        ctrl[:CTRL_STATE_ROWS, :, 0] = ctrl0
        grad = window_gradient(coef, signs, w_pe, params, pe0, att0, ctrl, True)
        size = (ring + 2) * n_feat
        tangent = np.zeros((size, size, 1))
        for j in range(size):                   # head = 0: logical row d is ring slot d
            tangent[j, j, 0] = 1.0
        tangent_push(grad, tangent, 0, np.empty((size, n_feat, 1)), params, ctrl, True)
        jac = np.zeros((size, size))
        for j in range(size):
            for d in range(ring):               # new head = ring - 1: row d sits in slot (d - 1) mod ring
                slot = d - 1 if d > 0 else ring - 1
                for a in range(n_feat):
                    jac[d * n_feat + a, j] = tangent[j, slot * n_feat + a, 0]
            for s in range(ring * n_feat, size):
                jac[s, j] = tangent[j, s, 0]
        return jac

    return TileKernels(steps, run_tiles, window_gradient, attention_jacobian, step_gradients, controlled_jacobian)


def one_lane(params, pe, att):
    """One point's ``params`` (K,), ``pe`` (L, P) and ``att`` (L, M) as one-lane arrays for
    :func:`tile_kernels`' ``window_gradient`` and ``attention_jacobian``."""
    return tuple(np.ascontiguousarray(np.asarray(a, dtype=np.float64)[..., None]) for a in (params, pe, att))


def attention_jacobian(coef, signs, w_pe, params, pe, att):
    """∂A'/∂A (L·M square) of one point (``params`` (K,), ``pe`` (L, P), ``att`` (L, M), a full window)."""
    kernel = tile_kernels(att.shape[0], att.shape[1], signs.shape[0]).attention_jacobian
    return kernel(np.ascontiguousarray(coef), np.ascontiguousarray(signs), np.ascontiguousarray(w_pe),
                  *one_lane(params, pe, att))


def images_and_jacobians(coef, signs, w_pe, params, pe, att) -> tuple[np.ndarray, np.ndarray]:
    """The map's images A' (n, L·M) and Jacobians ∂A'/∂A (n, L·M, L·M) (row-major flattening) of n points
    (``params`` (K,), ``pe`` (n, L, P), ``att`` (n, L, M), full windows, no control) in one compiled call: the first
    block row is the attention gradient, the rest the shift (docs/model.md §4). The points run as the lanes of one
    kernel call."""
    n, L, M = att.shape
    kernel = tile_kernels(L, M, signs.shape[0]).step_gradients
    grads, news = np.empty((L, M, M, n)), np.empty((M, n))
    kernel(np.ascontiguousarray(coef), np.ascontiguousarray(signs), np.ascontiguousarray(w_pe),
           np.ascontiguousarray(np.repeat(np.asarray(params, dtype=np.float64)[:, None], n, axis=1)),
           np.ascontiguousarray(np.moveaxis(pe, 0, -1), dtype=np.float64),
           np.ascontiguousarray(np.moveaxis(att, 0, -1), dtype=np.float64), grads, news)
    jacobians = np.zeros((n, L * M, L * M))
    jacobians[:, :M, :] = grads.transpose(3, 1, 0, 2).reshape(n, M, L * M)   # [i, a, d·M + b] = grad[d, a, b, i]
    shifted = np.arange(M, L * M)
    jacobians[:, shifted, shifted - M] = 1.0
    images = np.concatenate([news.T, att[:, :L - 1].reshape(n, -1)], axis=1)
    return images, jacobians


def _record_arrays(n_lanes: int, n_rows: int, n_sel: int, n_feat: int) -> tuple[np.ndarray, np.ndarray]:
    """The per-point records (n_lanes, rows, n_sel, M) and the kernel's view of them (rows, n_sel, M, n_lanes).
    Records are written where they are returned (point-major; a tile's lanes are a strided view), so that long
    trajectories are not copied once more. numba types that view by its layout: strided ('A') as a rule, but
    contiguous when it is empty or holds one row of one observable — another type signature, another compilation
    of the kernels. Those small cases get a view into a padded array (one more feature column, at least one row
    and one observable), strided like every other run; the kernel writes only the rows and observables it was
    asked for."""
    records = np.empty((n_lanes, n_rows, n_sel, n_feat))
    view = np.moveaxis(records, 0, -1)
    if view.flags.c_contiguous or view.flags.f_contiguous:
        padded = np.empty((n_lanes, max(n_rows, 1), max(n_sel, 1), n_feat + 1))
        view = np.moveaxis(padded, 0, -1)[:, :, :n_feat]
        records = padded[:, :n_rows, :n_sel, :n_feat]
    return records, view


def tile_width(n_points: int) -> int:
    """W for a batch: TILE_WIDTH, narrowed in steps of 16 down to MIN_TILE_WIDTH so that small batches
    still give every thread a tile. Results do not depend on it."""
    per_thread = -(-n_points // max(get_num_threads(), 1))
    return int(min(TILE_WIDTH, max(MIN_TILE_WIDTH, -(-per_thread // 16) * 16)))


def tile_lanes(controlled: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Assign points to lanes: uncontrolled points first, then controlled ones, each group padded to a
    multiple of ``width`` with copies of its first point. Returns (the point of every lane (tiles·W,), the
    lane of every point (n,))."""
    lanes, lane_of, used = [], np.empty(len(controlled), dtype=np.int64), 0
    for group in (np.flatnonzero(~controlled), np.flatnonzero(controlled)):
        if len(group):
            lane_of[group] = used + np.arange(len(group))
            lanes.append(np.concatenate([group, np.full(-len(group) % width, group[0])]))
            used += len(lanes[-1])
    return (np.concatenate(lanes) if lanes else np.zeros(0, dtype=np.int64)), lane_of


def run_batch(batch: Batch, width: int | None = None, math_library: str = "lane") -> BatchOutput:
    """Iterate every point of a :class:`~meanfield.model.layout.Batch` (docs/model.md §3, §4, §5) in tiles of
    ``width`` lanes (default :func:`tile_width`; results do not depend on it) with the exp, tanh and log of
    ``math_library`` (a key of :data:`MATH_LIBRARIES`); returns its
    :class:`~meanfield.model.layout.BatchOutput`."""
    n_points, ring, n_feat = batch.att0.shape
    width = tile_width(n_points) if width is None else int(width)
    controlled = is_controlled(batch.params) if n_points else np.zeros(0, bool)
    lanes, lane_of = tile_lanes(controlled, width)
    n_tiles = len(lanes) // width

    def to_tiles(a, dtype=np.float64):
        a = np.asarray(a, dtype=dtype)[lanes]
        return np.ascontiguousarray(np.moveaxis(a.reshape((n_tiles, width) + a.shape[1:]), 1, -1))

    records, records_view = _record_arrays(len(lanes), batch.n_rows, len(batch.selection), n_feat)
    out = TileOutput(records_view, np.zeros((n_tiles, batch.n_blocks, batch.n_exponents, width)),
                     np.empty((n_tiles, 2, width)), np.empty((n_tiles, ring, n_feat, width)),
                     np.empty((n_tiles, width), dtype=np.int64), np.empty((n_tiles, CTRL_STATE_ROWS, n_feat, width)))
    scratch_rows = np.zeros((n_points, CTRL_ROWS - CTRL_STATE_ROWS, n_feat))
    tiles = TileInput(to_tiles(batch.params), to_tiles(batch.pe0), to_tiles(batch.att0),
                      to_tiles(batch.depth0, np.int64), to_tiles(np.concatenate([batch.ctrl0, scratch_rows], axis=1)),
                      np.ascontiguousarray(controlled[lanes[::width]]))
    shared = BatchShared(np.ascontiguousarray(batch.coef), np.ascontiguousarray(batch.signs),
                         np.ascontiguousarray(batch.w_pe), int(batch.steps), int(batch.transient),
                         int(batch.record_every), np.ascontiguousarray(batch.selection, dtype=np.int64),
                         int(batch.qr_every), np.zeros(1, np.int64) if batch.progress is None else batch.progress)
    run_tiles = tile_kernels(ring, n_feat, batch.signs.shape[0], math_library).run_tiles

    def run(chunk):
        run_tiles(shared, tiles, out, chunk[0], chunk[-1] + 1)

    threads = min(get_num_threads(), n_tiles)
    if threads > 1:       # a few chunks per thread: a thread that finishes early takes the next one
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(run, np.array_split(np.arange(n_tiles), min(n_tiles, TASKS_PER_THREAD * threads))))
    elif n_tiles:
        run(np.arange(n_tiles))
    tile_of, lane = lane_of // width, lane_of % width
    in_order = np.array_equal(lane_of, np.arange(n_points))
    per_point = (lambda a: a[tile_of, ..., lane])
    return BatchOutput(records[:n_points] if in_order else records[lane_of], per_point(out.final_att),
                       per_point(out.final_depth), per_point(out.block_sums), per_point(out.final_ctrl),
                       per_point(out.stats))
