"""The public entry points ``simulate`` (one parameter point) and ``simulate_batch`` (many points at once).

Both validate everything before touching a kernel, run the batched kernel of the chosen backend, and turn
block sums of log|R_jj| into Lyapunov exponents with standard errors (docs/model.md §4.2).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .analysis.maps import MapTrajectory
from .analysis.system import System, not_a_system
from .errors import ConfigError
from .model.layout import OBSERVABLES, Batch, BatchOutput, batch_parameters, control_start, controlled, map_tables
from .model.run_rules import check_full_window, check_lengths, exponent_count, parse_backend
from .model.spec import ModelSpec, require_int
from .model.state import StartWindows, State
from .options import Compute, Lyapunov, Record, check_compute
from .progress import StepWatch, delay_of, progress_bar
from .short_repr import short_repr

DEFAULT_BLOCKS = 20


@short_repr
@dataclass(frozen=True, eq=False)
class BatchRun:
    """What a batch was run with: the model, the parameters varied over its points (name -> (n,) array, as
    :func:`simulate_batch` took them), the steps, the transient and the recording interval."""

    model: ModelSpec
    parameters: dict
    steps: int
    transient: int
    record_every: int


@short_repr
@dataclass(frozen=True, eq=False)
class BatchResult:
    """Results of :func:`simulate_batch` for n points.

    ``records[name]`` is (n, rows, M) for every recorded observable; ``lyapunov``/``lyapunov_stderr`` are
    (n, k) descending exponents and standard errors (None without exponents); ``lyapunov_blocks`` (n, B, k)
    the per-block means in the same order (convergence diagnostics); ``final_att`` (n, L, M) and
    ``final_pe`` (n, L, P) the final states (``final_depth`` valid rows); ``run`` what the batch was run with,
    so that :meth:`point` gives any point as a :class:`Trajectory` of its own model.

    PID control (docs/model.md §5): ``control`` (n, 3, M) the final controller state [r, I, e_prev] (None when no
    point is controlled), ``max_integral`` (n,) max_t |I_t| and ``diverged_at`` (n,) the step at which a
    point's loop passed :data:`meanfield.model.layout.DIVERGENCE_BOUND` (-1: never); a diverged point's remaining
    records and its exponents are NaN, so :func:`meanfield.analysis.classify` labels it ``divergent``.
    """

    records: dict
    lyapunov: np.ndarray | None
    lyapunov_stderr: np.ndarray | None
    lyapunov_blocks: np.ndarray | None
    final_att: np.ndarray
    final_pe: np.ndarray
    final_depth: np.ndarray
    run: BatchRun
    control: np.ndarray | None = None
    max_integral: np.ndarray | None = None
    diverged_at: np.ndarray | None = None

    def point(self, i: int) -> Trajectory:
        """Point ``i`` as a :class:`Trajectory` of its own model (the batch's model with point ``i``'s
        parameters), so that it is analysed like a single run: ``classify(batch.point(i))``, or
        ``classify(batch, i)``, takes the forcing period from it."""
        run = self.run
        n = len(self.final_depth)
        if isinstance(i, bool) or not isinstance(i, int | np.integer) or not -n <= i < n:
            raise ConfigError(f"point = {i!r} is not allowed: must be an integer index into the {n} points")
        values = {key: float(column[i]) for key, column in run.parameters.items()}
        series = {name: self.records[name][i] if name in self.records else None for name in OBSERVABLES}
        pick = (lambda a: None if a is None else a[i])
        model = run.model.replace(**values) if values else run.model
        return Trajectory(model=model, steps=run.steps, transient=run.transient, record_every=run.record_every,
                          **series, lyapunov=pick(self.lyapunov), lyapunov_stderr=pick(self.lyapunov_stderr),
                          lyapunov_blocks=pick(self.lyapunov_blocks), final_state=self.final_state(i),
                          max_integral=float(self.max_integral[i]), diverged_at=int(self.diverged_at[i]))

    @property
    def divergent(self) -> np.ndarray:
        """(n,) bool: the point's control loop grew without bound and was stopped (docs/model.md §5.3)."""
        return np.zeros(len(self.final_depth), bool) if self.diverged_at is None else self.diverged_at >= 0

    def final_state(self, i: int) -> State:
        """The final state of point ``i``, usable as the start of another run (continuation); a controlled
        point's state carries its controller [r, I, e_prev]."""
        control = None if self.control is None or not self.controlled[i] else self.control[i]
        return State(att=self.final_att[i, :self.final_depth[i]], pe=self.final_pe[i], control=control)

    @property
    def controlled(self) -> np.ndarray:
        """(n,) bool: the point has a non-zero PID gain."""
        return np.zeros(len(self.final_depth), bool) if self.max_integral is None else ~np.isnan(self.max_integral)


@short_repr
@dataclass(frozen=True, eq=False)
class Trajectory:
    """One simulated point: observables of shape (rows, M) (None when not recorded), rows = iterations
    transient, transient + record_every, ... (docs/model.md §3.2: row t = iteration t).

    PID control (docs/model.md §5): ``max_integral`` = max_t |I_t| (NaN without controller), ``diverged_at`` the step at
    which the loop passed the divergence bound (-1: never; records from there on are NaN)."""

    model: ModelSpec
    steps: int
    transient: int
    record_every: int
    att: np.ndarray | None
    mo: np.ndarray | None
    mo_se: np.ndarray | None
    mv: np.ndarray | None
    mq: np.ndarray | None
    mk: np.ndarray | None
    lyapunov: np.ndarray | None
    lyapunov_stderr: np.ndarray | None
    lyapunov_blocks: np.ndarray | None
    final_state: State
    max_integral: float | None = None
    diverged_at: int | None = None

    @property
    def forcing_period(self) -> int:
        """Period, in recorded rows, of the positional encoding that forces the map
        (:meth:`~meanfield.model.spec.ModelSpec.forcing_period`); :func:`meanfield.analysis.classify` reads it,
        as a sweep passes it."""
        return self.model.forcing_period(self.record_every)


def checkpoint_start(model: ModelSpec, key: str = "start") -> State:
    """The model's checkpoint, the default start of every tool; a ConfigError naming ``key`` when the model has
    none (a model from weights: the random preset, ``from_weights``)."""
    if model.checkpoint is None:
        raise ConfigError(f"{key}: this model has no checkpoint; pass a State (explicit, token or continuation)")
    return model.checkpoint


def _start_arrays(model: ModelSpec, start, n_points: int):
    """Broadcast the start (None = the model's checkpoint, a State, a list of n States or
    :class:`~meanfield.model.state.StartWindows` of n) to kernel arrays."""
    if start is None:
        start = checkpoint_start(model)
    context, n_features, pe_bits = model.context, model.n_features, model.pe_bits
    if isinstance(start, StartWindows):
        start.check(model)
        if len(start) != n_points:
            raise ConfigError(f"start: need {n_points} windows, one per point; got {len(start)}")
        pe0 = np.broadcast_to(start.pe if pe_bits else np.zeros((context, 0)), (n_points, context, pe_bits))
        return np.array(start.att), np.array(pe0), np.full(n_points, context, dtype=np.int64), None
    starts = [start] * n_points if isinstance(start, State) else list(start)
    if len(starts) != n_points or not all(isinstance(s, State) for s in starts):
        raise ConfigError(f"start: need one State or a list of {n_points} States; got {type(start).__name__}"
                          f" of length {len(starts)}")
    att0 = np.zeros((n_points, context, n_features))
    pe0 = np.zeros((n_points, context, pe_bits))
    depth0 = np.empty(n_points, dtype=np.int64)
    for i, state in enumerate(starts):
        state.check(model)
        depth0[i] = state.att.shape[0]
        att0[i, :depth0[i]] = state.att
        if pe_bits:
            pe0[i] = state.pe
    return att0, pe0, depth0, starts


#: Default re-orthonormalisation interval. Every step: with the paper's γ ≈ 127 the spectrum spans ~10 per
#: step, and a product of even two Jacobians loses the most contracting directions in float64
#: (bench/qr_interval.py measures the change against every-step QR: up to 1.6 for r = 2 at β_o = 3).
DEFAULT_QR_EVERY = 1


def exponents_from_blocks(block_sums: np.ndarray, n_saved: int):
    """Exponents, standard errors and block means from per-block sums of log|R_jj| (docs/model.md §4.2).

    Exponent j = (total of block sums) / n_saved, the reference's S / (max_sim_steps - min_saved_step).
    Standard error = std of the block means (ddof 1) / √B. All three are sorted by descending exponent
    (the reference's convention).
    """
    n_blocks = block_sums.shape[-2]
    lengths = np.bincount(np.arange(n_saved) * n_blocks // n_saved, minlength=n_blocks).astype(np.float64)
    with np.errstate(invalid="ignore"):
        exponents = block_sums.sum(axis=-2) / n_saved
        means = block_sums / lengths[:, None]
        stderr = means.std(axis=-2, ddof=1) / np.sqrt(n_blocks) if n_blocks > 1 else np.full_like(exponents, np.nan)
    order = np.argsort(-exponents, axis=-1, kind="stable")
    take = np.take_along_axis
    return (take(exponents, order, -1), take(stderr, order, -1),
            take(means, np.expand_dims(order, -2), -1))


#: The most pieces a batch with a progress bar runs in.
PROGRESS_PIECES = 40


def progress_pieces(n_points: int) -> int:
    """Pieces a CPU batch with a progress bar runs in: at most :data:`PROGRESS_PIECES`, each holding a full
    tile per thread (the CPU kernel pads a partial tile, docs/model.md §3.3, so smaller pieces waste work)."""
    from numba import get_num_threads

    from .kernels.cpu import TILE_WIDTH
    return int(max(1, min(PROGRESS_PIECES, n_points // (TILE_WIDTH * get_num_threads()))))


def simulate_batch(model: ModelSpec, steps: int, transient: int = 0, *, parameters: dict | None = None,
                   start: State | Sequence[State] | StartWindows | None = None, lyapunov: bool | int | Lyapunov = False,
                   record: str | Sequence[str] | Record = OBSERVABLES, compute: Compute = Compute()) -> BatchResult:
    """Iterate many parameter points of one model (same tables) at once.

    Parameters
    ----------
    model : ModelSpec
    steps, transient : int
        Iterations t = 0..steps-1; observables and exponents from t = transient on (docs/model.md §3, §4).
    parameters : dict of {name: 1-D array}, optional
        Scalar parameters varied over the points (:data:`meanfield.model.spec.SCALAR_PARAMETERS`).
    start : None, State, list of State or ~meanfield.model.state.StartWindows
        None = the model's checkpoint; token starts via :meth:`State.from_token`; many full windows with one
        PE window as arrays: :class:`~meanfield.model.state.StartWindows`. Without ``parameters``, n starts are
        n points of the model's own parameters.
    lyapunov : bool, int or ~meanfield.Lyapunov
        False, True (all: L·M, or L·M + 2M when the run has a PID controller: a non-zero gain in the model or
        a gain in ``parameters``; refused above 128, docs/model.md §5.2), the k leading exponents
        (:mod:`meanfield.model.run_rules`), or a :class:`~meanfield.Lyapunov` that also sets the QR interval and the
        blocks of the standard errors.
        Needs a full window (D = L) at t = transient.
    record : str, list of str, ~meanfield.Record or None
        Observables to record (None: all), or a :class:`~meanfield.Record` that also decimates (every ``every``-th
        iteration from ``transient`` on).
    compute : ~meanfield.Compute
        The backend ("cpu", "cuda", "cuda:float32"; the cuda backends need the GPU extra, BackendError without
        a GPU) and the progress bar on stderr over the points, its ETA measured after the first piece (which
        includes compiling), with the step the running points have reached; the CPU batch then runs in up to
        :data:`~meanfield.simulation.PROGRESS_PIECES` pieces (identical results). Default: the bar appears once
        the batch has run :data:`~meanfield.progress.PROGRESS_DELAY` seconds; False: none.
    """
    steps, transient = check_lengths(steps, transient)
    recording, compute = Record.of(record), check_compute(compute, "simulate_batch", "chunk")
    spectrum = lyapunov if isinstance(lyapunov, Lyapunov) else None
    selection = np.array([OBSERVABLES.index(r) for r in recording.fields], dtype=np.int64)
    record_every, backend, progress = recording.every, compute.backend, compute.progress
    params = batch_parameters(model, parameters)
    if not parameters and isinstance(start, StartWindows | list | tuple) and len(start) > 0:
        params = np.repeat(params, len(start), axis=0)          # one point per start
    n_exponents = exponent_count(spectrum.asked if spectrum else lyapunov, model, parameters or ())
    att0, pe0, depth0, starts = _start_arrays(model, start, params.shape[0])
    ctrl0 = control_start(params, att0, starts)
    n_saved = steps - transient
    spectrum = spectrum or Lyapunov()
    qr_every = DEFAULT_QR_EVERY if spectrum.qr_every is None else spectrum.qr_every
    n_blocks = spectrum.n_blocks or min(DEFAULT_BLOCKS, n_saved)
    require_int("n_blocks", n_blocks, 1, n_saved)
    check_full_window(n_exponents, depth0, transient, model.context)
    if isinstance(backend, str):
        _check_memory(params.shape[0] * (-(-n_saved // record_every)) * len(selection) * model.n_features * 8)
    kernel = _backend(backend)
    coef, signs, w_pe = map_tables(model)
    n_points = params.shape[0]
    show = progress is not False
    pieces = 1 if backend != "cpu" or not show else progress_pieces(n_points)
    bounds = np.linspace(0, n_points, pieces + 1).round().astype(np.int64)
    reached = np.zeros(1, np.int64)
    batch = Batch(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, steps, transient, record_every, selection,
                  n_exponents, qr_every, n_blocks, reached)
    parts = []
    delay = delay_of(progress)
    with progress_bar(n_points, "simulate_batch", enabled=show, delay=delay) as bar, StepWatch(bar, reached, steps):
        for lo, hi in zip(bounds[:-1], bounds[1:]):      # every point is independent: results do not depend on it
            parts.append(kernel(batch.points(lo, hi)))
            bar.update(int(hi - lo))
    records, final_att, final_depth, block_sums, control, stats = BatchOutput.concatenate(parts)
    active = controlled(params)
    window = model.context * model.n_features
    block_sums[~active, :, window:] = -np.inf       # an uncontrolled point has no controller coordinates
    shift = steps % model.context
    final_pe = np.roll(pe0, shift, axis=1)
    exponents = stderr = blocks = None
    if n_exponents:
        exponents, stderr, blocks = exponents_from_blocks(block_sums, n_saved)
        stderr[exponents == -np.inf] = 0.0
    recorded = {OBSERVABLES[code]: records[:, :, n, :] for n, code in enumerate(selection)}
    max_integral = np.where(active, stats[:, 0], np.nan)
    diverged_at = np.where(active, stats[:, 1], -1).astype(np.int64)
    varied = {key: np.asarray(column, dtype=np.float64).reshape(-1) for key, column in (parameters or {}).items()}
    return BatchResult(recorded, exponents, stderr, blocks, final_att, final_pe, final_depth,
                       BatchRun(model, varied, steps, transient, record_every), control if active.any() else None,
                       max_integral, diverged_at)


def _check_memory(nbytes: int) -> None:
    """Refuse recorded series larger than this machine's memory, before anything is allocated."""
    import psutil
    total = psutil.virtual_memory().total
    if nbytes > total:
        raise ConfigError(f"steps: the recorded series need {nbytes / 2 ** 30:.3g} GiB and this machine has "
                          f"{total / 2 ** 30:.3g} GiB; record fewer steps (transient, record_every), observables "
                          "(record) or points")


def _backend(name):
    if callable(name):  # a kernel(batch) -> BatchOutput, e.g. meanfield.kernels.cuda_reductions.ReducingBackend
        return name
    device, dtype = parse_backend(name)
    if device == "cpu":
        from .kernels.cpu import run_batch
        return run_batch
    from .kernels.cuda import backend  # raises BackendError without CUDA, before compiling
    return backend(dtype)


def simulate(model, steps: int, transient: int = 0, *, start: State | None = None,
             lyapunov: bool | int | Lyapunov = False, record: str | Sequence[str] | Record | None = None,
             compute: Compute = Compute()) -> Trajectory | MapTrajectory:
    """Simulate one parameter point; see :func:`simulate_batch` for the arguments (``record`` None: every
    observable, every step).

    Returns a :class:`Trajectory` whose arrays have shape ((steps - transient) / record.every, M), row t
    being iteration transient + t·record.every (docs/model.md §3.2). A system (the attention model's
    ``AttentionSystem``, a user's :class:`~meanfield.Map`: an instance of the protocol
    :class:`~meanfield.analysis.system.System`, docs/architecture.md §2) runs itself with the
    options given: a Map by :meth:`Map.simulate <meanfield.Map.simulate>` (``start`` an array,
    ``lyapunov``; an option of the attention kernel is refused).
    """
    if isinstance(model, System):          # a system (docs/architecture.md §2): it runs itself
        return model.simulate(steps, transient, start=start, lyapunov=lyapunov, record=record, compute=compute)
    if not isinstance(model, ModelSpec):
        raise not_a_system(model)
    return simulate_batch(model, steps, transient, start=start, lyapunov=lyapunov, record=record,
                          compute=compute).point(0)


def attention_jacobian(model: ModelSpec, state: State) -> np.ndarray:
    """The analytic Jacobian ∂A'/∂A (L·M × L·M) of the map at a full-window state (docs/model.md §4)."""
    state.check(model)
    if state.att.shape[0] != model.context:
        raise ConfigError(f"state.att: {state.att.shape[0]} rows is not allowed: the Jacobian needs a full "
                          f"window of L = {model.context} rows")
    from .kernels.cpu import attention_jacobian as kernel
    coef, signs, w_pe = map_tables(model)
    pe = state.pe if model.pe_bits else np.zeros((model.context, 0))
    return kernel(coef, signs, w_pe, batch_parameters(model)[0], np.ascontiguousarray(pe),
                  np.ascontiguousarray(state.att))
