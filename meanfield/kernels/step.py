"""The mean-field step and its tangent step over lanes: the one definition of the map (docs/model.md §3), its
tangent map (§4) and the PID law (§5), compiled for the CPU (:mod:`.cpu`: tiles of W points in lockstep,
vectorised over the lanes) and for CUDA (:mod:`.cuda`: one point per thread, one lane).

:func:`build_steps` takes a JIT decorator (``numba.njit`` for the CPU, ``numba.cuda.jit(device=True)`` for CUDA) and
the model's dimensions, and returns the compiled functions as one :class:`Steps`. It composes them from named
stages, each a factory that compiles a few functions and returns them as a named tuple, the later stages calling
the earlier stages' functions:

* :func:`.map_stages.token_stage`: the new token's mean fields, its value and key rows, attention (docs/model.md
  §3);
* :func:`.map_stages.control_stage`: the PID law (§5.1);
* :func:`.tangent_stages.tangent_stage`: the token Jacobians, the attention gradient and the push of the tangent
  vectors (§4, §5.2);
* :func:`.tangent_images.image_stage` (run-time sizes): the tangent vectors' new rows from the tangent images of
  the window rows instead (§4.1);
* :func:`.tangent_stages.lyapunov_stage`: the tangent vectors' start, step and QR (§4.2);
* :func:`.tile_stages.record_stage`: a tile's start, records, final state and divergence freeze;
* :func:`.tile_stages.tile_loop`: the loop over a tile's steps;
* :func:`.tile_stages.scratch_stage`: ``scratch_allocator``, which makes ``new_scratch``, the one allocator of
  both backends' scratch.

The stages' functions call each other across these modules; the CPU backend's cache key includes a digest of
every kernel source (:mod:`.cpu`, "On-disk caching"), so an edit of any of them recompiles.

Every function takes arrays, or named tuples of arrays (the records of :mod:`meanfield.model.layout`, docs/model.md
§3.4), in and writes arrays out: no allocation (but ``new_scratch``), no Python objects. Every per-point array
carries the points on its LAST axis, the lanes (struct of arrays): ``att_ring[slot, a, lane]`` is feature a of
window slot ``slot`` of ``lane``. The loops over lanes are innermost, so LLVM turns every lane loop into packed
arithmetic; exp, tanh and log come from :mod:`.lane_math` for that reason. The model's dimensions L, M, J are either
compile-time constants or, built with 0, read from the arrays' shapes at run time (one compilation for every shape).
With constants, a lane loop wraps a few operations of one point, its sums in registers over the unrolled loops of
the dimensions (what suits the small windows and a GPU thread); with run-time sizes the six functions with such sums
come from :mod:`.lane_sums`, where a sum over features, patterns or rows accumulates in an array, one lane per
element, the lane loop innermost. Every lane adds the same terms in the same order either way, so the bits of a
result are the same. A lane's arithmetic never reads another lane, so results do not depend on the tile width, the
padding or the neighbours (docs/model.md §3.3); on the GPU the same functions run with one lane.

Window layout (docs/model.md §3.3): the attention window, and the value/key rows of the tokens computed from
it, live in ring buffers of L slots; logical row d (d = 0 newest) is slot ``(head + d) % L``, the same for
every lane of a tile. A token's value and key rows never change once computed (its PE code travels with it),
so a step computes the mean fields of one new token, L scores, one softmax and one weighted sum. Rows beyond
a lane's depth (a start window of fewer than L rows) are masked: score -inf, weight 0.

Per-point parameters ``params`` (K, lanes), the controller state ``ctrl`` (CTRL_ROWS, M, lanes) and the
observable codes follow :mod:`meanfield.model.layout`; the indices each stage uses, and the dimensions, are bound
as locals of its factory, so the compiled functions hold them as closure constants, which numba's cache key
includes (a change of the layout recompiles; an imported module global would not). Coefficient tables
``coef`` are (4, J, M) in feature order o, v, q, k; ``signs`` (J, M) the sign patterns (the rows G of the
tanh arguments in the sigma model, docs/model.md §10).
"""
from collections.abc import Callable
from typing import NamedTuple

from . import lane_math
from .map_stages import control_stage, token_stage
from .tangent_stages import lyapunov_stage, tangent_stage
from .tile_stages import record_stage, scratch_stage, tile_loop


class Steps(NamedTuple):
    """What :func:`build_steps` returns: the compiled functions of every stage (the fields of
    :class:`TokenStage`, :class:`TangentStage`, :class:`ControlStage`, :class:`LyapunovStage`,
    :class:`RecordStage`, :class:`TileLoop` and :class:`ScratchStage`, by name)."""

    slot_of: Callable
    positional_terms: Callable
    token_fields: Callable
    store_token: Callable
    attend: Callable
    value_query_key: Callable
    signed_sums: Callable
    tanh_slopes: Callable
    token_jacobian: Callable
    keeps_jacobians: Callable
    token_derivatives: Callable
    attention_gradient: Callable
    tangent_push: Callable
    push_rows: Callable
    control_step: Callable
    orthonormalize_window: Callable
    orthonormalize_controlled: Callable
    start_tangents: Callable
    advance_tangents: Callable
    record: Callable
    save_state: Callable
    start_tile: Callable
    freeze_diverged: Callable
    blank_records: Callable
    run_tile: Callable
    scratch_allocator: Callable


def build_steps(jit, ring, n_feat, n_patterns, leaf_jit=None, transcendentals=None):
    """Compile the lane step functions for windows of L = ``ring`` rows, M = ``n_feat`` features and
    J = ``n_patterns`` sign patterns; returns them as a :class:`Steps`. A size given as 0 is read from the
    arrays at run time instead (``ring = n_feat = n_patterns = 0``: one compilation for every shape).

    ``jit`` compiles the functions with loops (the CPU's tells LLVM that their array arguments do not
    overlap, which they never do), ``leaf_jit`` (default ``jit``) the small loop-free ones, which the CPU
    inlines into their callers. ``transcendentals`` = (exp, tanh, log) compiled with ``leaf_jit`` replaces
    :mod:`.lane_math` (the C library's for CUDA float32 and for comparisons).
    """
    L, M, J = int(ring), int(n_feat), int(n_patterns)
    leaf_jit = jit if leaf_jit is None else leaf_jit
    exp, tanh, log = lane_math.build(leaf_jit) if transcendentals is None else transcendentals
    tokens = token_stage(jit, leaf_jit, L, M, J, exp, tanh)
    tangents = tangent_stage(jit, leaf_jit, L, M, J, tokens)
    control = control_stage(jit, M)
    lyapunov = lyapunov_stage(jit, L, M, log, tokens, tangents)
    records = record_stage(jit, L, M, tokens, tangents)
    loop = tile_loop(jit, L, M, tokens, tangents, control, lyapunov, records)
    return Steps(**tokens._asdict(), **tangents._asdict(), **control._asdict(), **lyapunov._asdict(),
                 **records._asdict(), **loop._asdict(), **scratch_stage()._asdict())
