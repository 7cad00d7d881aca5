"""A tile's stages, compiled by :func:`.step.build_steps`: what a tile does besides stepping (its start, records,
final state and divergence freeze: :func:`record_stage`), the loop over its steps (:func:`tile_loop`) and the one
allocator of both backends' scratch (:func:`scratch_stage`).
"""
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..model import layout


class RecordStage(NamedTuple):
    """The functions of :func:`record_stage`."""

    record: Callable
    save_state: Callable
    start_tile: Callable
    freeze_diverged: Callable
    blank_records: Callable


class TileLoop(NamedTuple):
    """The function of :func:`tile_loop`."""

    run_tile: Callable


def record_stage(jit, L, M, tokens, tangents):
    """What a tile does besides stepping: ``record`` (the observables of a step), ``save_state`` (a lane's final
    state), ``start_tile``, ``freeze_diverged`` (docs/model.md §5.3) and ``blank_records``, calling the functions of
    ``tokens`` (a :class:`TokenStage`) and ``tangents`` (a :class:`TangentStage`); returns a :class:`RecordStage`."""
    OBS_ATT, OBS_MO, OBS_MO_SE, OBS_MV, OBS_MQ = (layout.OBS_ATT, layout.OBS_MO, layout.OBS_MO_SE, layout.OBS_MV,
                                                  layout.OBS_MQ)
    F_O, F_V, F_Q, F_K = layout.F_O, layout.F_V, layout.F_Q, layout.F_K
    slot_of, positional_terms = tokens.slot_of, tokens.positional_terms
    token_fields, store_token, token_derivatives = tokens.token_fields, tokens.store_token, tangents.token_derivatives

    @jit
    def record(selection, att_new, fields, semantic_o, diverged_at, records, row):
        """records[row, n, a, lane] = observable ``selection[n]`` of this step; NaN for a lane whose control
        loop has diverged (``diverged_at[lane]`` >= 0)."""
        n_feat = M if M > 0 else att_new.shape[0]
        for n in range(selection.shape[0]):
            obs = selection[n]
            if obs == OBS_ATT:
                source = att_new
            elif obs == OBS_MO:
                source = fields[F_O]
            elif obs == OBS_MO_SE:
                source = semantic_o
            elif obs == OBS_MV:
                source = fields[F_V]
            elif obs == OBS_MQ:
                source = fields[F_Q]
            else:
                source = fields[F_K]
            for a in range(n_feat):
                for lane in range(att_new.shape[1]):
                    records[row, n, a, lane] = source[a, lane] if diverged_at[lane] < 0.0 else math.nan

    @jit
    def save_state(att_ring, head, depth, ctrl, final_att, final_depth, final_ctrl, lane):
        """Copy lane ``lane``'s window (in logical order), depth and controller [r, I, e_prev] to the outputs."""
        n_rows = L if L > 0 else att_ring.shape[0]
        n_feat = M if M > 0 else att_ring.shape[1]
        for d in range(n_rows):
            slot = slot_of(head, d, n_rows)
            for a in range(n_feat):
                final_att[d, a, lane] = att_ring[slot, a, lane]
        for r in range(final_ctrl.shape[0]):
            for a in range(n_feat):
                final_ctrl[r, a, lane] = ctrl[r, a, lane]
        final_depth[lane] = depth[lane]

    @jit
    def start_tile(shared, tile, scratch, out):
        """Set up a tile before its first step: control statistics [0, -1], the PE terms of the start window,
        the value/key rings zeroed (rows beyond a lane's depth are read with weight 0: keep them finite) and
        filled with the tokens already in the start window, with their Jacobians when exponents are asked for
        (row 0 is redone at t = 0)."""
        n_rows = L if L > 0 else tile.att.shape[0]
        n_feat = M if M > 0 else tile.att.shape[1]
        coef, signs, params, att_ring = shared.coef, shared.signs, tile.params, tile.att
        stats = out.stats
        n_lanes = att_ring.shape[2]
        for lane in range(n_lanes):
            stats[0, lane] = 0.0
            stats[1, lane] = -1.0
        positional_terms(shared.w_pe, params, tile.pe0, scratch.pe_terms)
        for d in range(n_rows):
            for a in range(n_feat):
                for lane in range(n_lanes):
                    scratch.v_ring[d, a, lane] = 0.0
                    scratch.k_ring[d, a, lane] = 0.0
        for d in range(1, n_rows):
            token_fields(coef, signs, params, att_ring, d, scratch.pe_terms, scratch.h, scratch.fields,
                         scratch.semantic_o, False)
            store_token(scratch.fields, scratch.v_ring, scratch.k_ring, d)
            if out.block_sums.shape[1] > 0:
                token_derivatives(coef, signs, params, scratch.h, scratch.dv_ring, scratch.dk_ring, d)

    @jit
    def freeze_diverged(t, head, lane, tile, out):
        """The divergence freeze (docs/model.md §5.3): lane ``lane``, whose loop passed the bound at step ``t``,
        gets ``t`` in ``stats[1]``, its state saved as it was and its block sums NaN. (Called only for that
        lane; the per-step bookkeeping of the lanes stays in the tile loop, since a call per step that passes
        the records slows the controlled step: bench/throughput.py, bench/RESULTS.md.)"""
        out.stats[1, lane] = t
        save_state(tile.att, head, tile.depth, tile.ctrl, out.final_att, out.final_depth, out.final_ctrl, lane)
        block_sums = out.block_sums
        for block in range(block_sums.shape[0]):
            for j in range(block_sums.shape[1]):
                block_sums[block, j, lane] = math.nan

    @jit
    def blank_records(records, first_row):
        """NaN in every record row from ``first_row`` on (every lane of the tile has diverged)."""
        n_feat = M if M > 0 else records.shape[2]
        for row in range(first_row, records.shape[0]):
            for n in range(records.shape[1]):
                for a in range(n_feat):
                    for lane in range(records.shape[3]):
                        records[row, n, a, lane] = math.nan

    return RecordStage(record, save_state, start_tile, freeze_diverged, blank_records)


def tile_loop(jit, L, M, tokens, tangents, control, lyapunov, records):
    """The tile loop ``run_tile`` (docs/model.md §3), calling the functions of the earlier stages: ``tokens``
    (:class:`TokenStage`), ``tangents`` (:class:`TangentStage`), ``control`` (:class:`ControlStage`),
    ``lyapunov`` (:class:`LyapunovStage`) and ``records`` (:class:`RecordStage`); returns a :class:`TileLoop`."""
    PROGRESS_STRIDE = layout.PROGRESS_STRIDE
    OBS_MO, OBS_MO_SE = layout.OBS_MO, layout.OBS_MO_SE
    token_fields, store_token, attend = tokens.token_fields, tokens.store_token, tokens.attend
    token_derivatives, control_step = tangents.token_derivatives, control.control_step
    start_tangents, advance_tangents = lyapunov.start_tangents, lyapunov.advance_tangents
    record, save_state, start_tile = records.record, records.save_state, records.start_tile
    freeze_diverged, blank_records = records.freeze_diverged, records.blank_records

    @jit
    def run_tile(shared, tile, scratch, out):
        """Iterate the lanes of a tile for ``shared.steps`` steps (docs/model.md §3), recording after
        ``shared.transient``. The arguments are the records of :mod:`meanfield.model.layout`: ``shared``
        (:class:`~meanfield.model.layout.BatchShared`), ``tile`` (:class:`~meanfield.model.layout.TileInput`, the
        tile's start, iterated in place), ``scratch`` (:class:`~meanfield.model.layout.TileScratch`, from
        ``new_scratch``) and ``out`` (:class:`~meanfield.model.layout.TileOutput`): records[(t - transient) //
        record_every, n] for the observables ``selection[n]``; with k = ``block_sums.shape[1]`` > 0 the k
        leading Lyapunov exponents (tangent vectors from Q = I at t = transient): log|R_jj| of a QR every
        ``qr_every`` steps and at block ends summed into ``block_sums[block, j]``; ``stats`` [max_t |I_t|, the
        step at which the loop diverged or -1]; the final window (logical order), depth and controller.

        A diverged lane is frozen there (``freeze_diverged`` of :func:`record_stage`): its final state is the last
        one within the bound, its remaining records and its block sums are NaN (so classification says
        ``divergent``). It keeps being iterated with its tile (its values are ignored); the tile stops when every
        lane has diverged.
        """
        n_rows = L if L > 0 else tile.att.shape[0]
        n_feat = M if M > 0 else tile.att.shape[1]
        coef, signs, params, att_ring = shared.coef, shared.signs, tile.params, tile.att
        # every array the loop uses is taken out of its record here, once, and what runs every step stays in the
        # loop: a field read costs a reference count, a call passing records a dozen machine words per array;
        # together they slow every step (measured against the positional kernel, docs/model.md §3.4, with
        # bench/throughput.py: bench/RESULTS.md)
        steps, transient, record_every = shared.steps, shared.transient, shared.record_every
        selection, depth, controlled = shared.selection, tile.depth, tile.controlled
        records, stats, block_sums = out.records, out.stats, out.block_sums
        h, fields, semantic_o, att_new = scratch.h, scratch.fields, scratch.semantic_o, scratch.att_new
        pe_terms, v_ring, k_ring = scratch.pe_terms, scratch.v_ring, scratch.k_ring
        p, softmax = scratch.p, scratch.softmax
        dv_ring, dk_ring = scratch.dv_ring, scratch.dk_ring
        ctrl, largest = tile.ctrl, scratch.largest
        n_vec = block_sums.shape[1]
        n_alive = att_ring.shape[2]
        reached = shared.progress
        with_o = False                   # m^o only where it is recorded
        for n in range(selection.shape[0]):
            with_o = with_o or selection[n] == OBS_MO or selection[n] == OBS_MO_SE
        start_tile(shared, tile, scratch, out)
        head = np.int64(0)               # not a literal: numba would compile the callees for head = 0 too
        for t in range(steps):
            if t % PROGRESS_STRIDE == 0:
                reached[0] = t
            # slot indices double as PE rows: the token of step t carries Π0[(-t) mod L] = Π0[head]
            token_fields(coef, signs, params, att_ring, head, pe_terms, h, fields, semantic_o, with_o)
            store_token(fields, v_ring, k_ring, head)
            attend(params, fields, v_ring, k_ring, head, depth, p, softmax, att_new)
            saved = t - transient
            if controlled:
                control_step(params, att_ring, head, att_new, ctrl, largest)
                for lane in range(att_ring.shape[2]):
                    if stats[1, lane] >= 0.0:
                        continue                          # frozen earlier
                    if largest[lane] < 0.0:
                        freeze_diverged(t, head, lane, tile, out)
                        n_alive -= 1
                    else:
                        stats[0, lane] = max(stats[0, lane], largest[lane])
                if n_alive == 0:
                    blank_records(records, (max(saved, 0) + record_every - 1) // record_every)
                    break
            if saved >= 0 and saved % record_every == 0:
                record(selection, att_new, fields, semantic_o, stats[1], records, saved // record_every)
            if n_vec > 0 and saved >= -n_rows:
                # the rows in the window when tangent dynamics start need their token Jacobians (h becomes the
                # slopes, which advance_tangents takes too)
                token_derivatives(coef, signs, params, h, dv_ring, dk_ring, head)
            if n_vec > 0 and saved >= 0:
                if saved == 0:
                    start_tangents(shared, tile, scratch, head)
                advance_tangents(shared, tile, scratch, block_sums, head, saved)
            # the new output becomes the newest row (ring slot head - 1); inline, since a call per step is slower
            # (bench/throughput.py, bench/RESULTS.md)
            head = head - 1 if head > 0 else n_rows - 1
            for lane in range(att_ring.shape[2]):
                for a in range(n_feat):
                    att_ring[head, a, lane] = att_new[a, lane]
                depth[lane] = min(depth[lane] + 1, n_rows)
        for lane in range(att_ring.shape[2]):
            if stats[1, lane] < 0.0:
                save_state(att_ring, head, depth, ctrl, out.final_att, out.final_depth, out.final_ctrl,
                           lane)

    return TileLoop(run_tile)


class ScratchStage(NamedTuple):
    """The function of :func:`scratch_stage`."""

    scratch_allocator: Callable


def scratch_stage():
    """The scratch allocator (sizes are its arguments); returns a :class:`ScratchStage`."""

    def scratch_allocator(array, dtype, allocator_jit):
        """``new_scratch(lanes, vectors, n_rows, n_feat, n_pat, n_entries, qr_rows, dot_rows, jac_rows,
        jac_feat)``: the :class:`~meanfield.model.layout.TileScratch` of a tile of ``lanes`` lanes, ``vectors``
        tangent vectors of ``n_entries`` entries (L·M + 2M whether or not the tile is controlled, the window's L·M
        first; 3·(L + 1)·M where the tangent images follow them, :mod:`.tangent_images`), ``qr_rows`` =
        ``n_entries`` + 1 rows of QR work and ``dot_rows`` of its dot products (1, or 1 + k(k + 1)/2 with the
        images: the QR's coefficients), for L = ``n_rows``, M = ``n_feat``, J = ``n_pat``; the token Jacobians and
        the window gradient are (``jac_rows``, ``jac_feat``, ``jac_feat``): (L, M, M) where the tangent map forms
        them, (1, 1, 1) otherwise (unread). Every array is made by ``array(shape, dtype)`` and the function
        compiled with ``allocator_jit``: ``numpy.empty`` on the CPU; on CUDA a per-thread local array, whose shape
        must be a compile-time constant, so there ``new_scratch`` is inlined (numba IR) into a caller that passes
        every size as a literal (hence the derived sizes among the arguments: an expression would not be one).
        ``run_tile`` takes the number of exponents from the output's block sums: a batch without exponents
        allocates 1 vector (a GPU rejects empty local arrays)."""

        @allocator_jit
        def new_scratch(lanes, vectors, n_rows, n_feat, n_pat, n_entries, qr_rows, dot_rows, jac_rows, jac_feat):
            return layout.TileScratch(
                array((4, n_rows, n_feat, lanes), dtype), array((n_pat, lanes), dtype),
                array((4, n_feat, lanes), dtype), array((n_feat, lanes), dtype),
                array((n_rows, n_feat, lanes), dtype), array((n_rows, n_feat, lanes), dtype),
                array((n_rows, lanes), dtype), array((n_feat, lanes), dtype),
                array((jac_rows, jac_feat, jac_feat, lanes), dtype),
                array((jac_rows, jac_feat, jac_feat, lanes), dtype),
                array((1, jac_feat, jac_feat, lanes), dtype),
                array((jac_rows, jac_feat, jac_feat, lanes), dtype),
                array((vectors, n_entries, lanes), dtype), array((vectors, n_feat, lanes), dtype),
                array((2, lanes), dtype),
                array((lanes,), dtype), array((qr_rows, lanes), dtype), array((dot_rows, lanes), dtype),
                array((2, n_pat, lanes), dtype), array((4, n_feat, lanes), dtype))

        return new_scratch

    return ScratchStage(scratch_allocator)
