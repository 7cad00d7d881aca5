"""Lyapunov spectra of arbitrary maps (Benettin, Galgani, Giorgilli & Strelcyn 1980; docs/model.md §4.2).

The map is given as two numba ``@njit`` functions with the in-place signatures

    step(x, params, out)       # out[:] = F(x; params)
    jacobian(x, params, out)   # out[:, :] = ∂F/∂x at x, shape (n, n)

where ``x`` and ``params`` are float64 1-D arrays (``params`` may be empty). The same code therefore serves
textbook maps (logistic, Hénon) in the tests and any user map. Tangent vectors are re-orthonormalised every
step by Gram–Schmidt with one re-orthogonalisation pass ("twice is enough", equivalent to a QR factorisation
Y = QR with positive diag R); ``λ_i = (1/T) Σ_t ln R_ii(t)`` as in the reference (docs/model.md §4.2: Q_0 = I, Y =
J·Q, QR, sum of ln|diag R|, divided by the number of steps). Standard errors come from block averages,
convergence diagnostics from the running estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from meanfield.analysis._input import as_series
from meanfield.compiled_cache import cached_jit
from meanfield.errors import AnalysisError
from meanfield.short_repr import short_repr

_OK, _DIVERGED, _DEGENERATE = 0, 1, 2

#: Rows of the running estimate of the exponents (``LyapunovResult.running``; fewer when there are fewer steps).
RUNNING_RECORDS = 1000


@short_repr
@dataclass(frozen=True)
class LyapunovResult:
    """Lyapunov exponents of a map with their uncertainty.

    Attributes
    ----------
    exponents : numpy.ndarray, shape (k,)
        Exponents in descending order (per step, natural log).
    stderr : numpy.ndarray, shape (k,)
        Standard errors from ``n_blocks`` block averages, ``std(block means, ddof=1) / sqrt(n_blocks)``.
    running : numpy.ndarray, shape (records, k)
        Running estimates (cumulative sum / steps so far), columns ordered as ``exponents``.
    running_steps : numpy.ndarray, shape (records,)
        Number of tangent steps behind each row of ``running``.
    """

    exponents: np.ndarray
    stderr: np.ndarray
    running: np.ndarray
    running_steps: np.ndarray


@cached_jit()
def _orthonormalise(y, logs):
    """Gram–Schmidt with re-orthogonalisation on the rows of y (k, n); ln of the norms into logs.

    Returns a status: _OK, _DIVERGED (a norm is NaN/inf) or _DEGENERATE (a norm is zero).
    """
    k, n = y.shape
    for j in range(k):
        for _ in range(2):
            for i in range(j):
                dot = 0.0
                for a in range(n):
                    dot += y[i, a] * y[j, a]
                for a in range(n):
                    y[j, a] -= dot * y[i, a]
        nrm = 0.0
        for a in range(n):
            nrm += y[j, a] * y[j, a]
        nrm = np.sqrt(nrm)
        if not np.isfinite(nrm):
            return _DIVERGED
        if nrm == 0.0:
            return _DEGENERATE
        for a in range(n):
            y[j, a] /= nrm
        logs[j] = np.log(nrm)
    return _OK


@cached_jit()
def _benettin(step, jacobian, params, x0, n_steps, transient, k, n_blocks, n_records):
    n = x0.size
    x = x0.copy()
    nxt = np.empty(n)
    for t in range(transient):
        step(x, params, nxt)
        x, nxt = nxt, x
        if not np.all(np.isfinite(x)):
            return _DIVERGED, t, np.empty(0), np.empty((0, 0)), np.empty((0, 0)), np.empty(0, np.int64)
    q = np.zeros((k, n))
    for j in range(k):
        q[j, j] = 1.0
    y = np.empty((k, n))
    jac = np.empty((n, n))
    logs = np.empty(k)
    total = np.zeros(k)
    blocks = np.zeros((n_blocks, k))
    block_len = n_steps // n_blocks
    running = np.empty((n_records, k))
    running_steps = np.empty(n_records, np.int64)
    every = n_steps // n_records
    for t in range(n_steps):
        if not np.all(np.isfinite(x)):
            return _DIVERGED, transient + t, total, blocks, running, running_steps
        jacobian(x, params, jac)
        for j in range(k):
            for a in range(n):
                acc = 0.0
                for b in range(n):
                    acc += jac[a, b] * q[j, b]
                y[j, a] = acc
        status = _orthonormalise(y, logs)
        if status != _OK:
            return status, transient + t, total, blocks, running, running_steps
        q, y = y, q
        blk = min(t // block_len, n_blocks - 1)
        for j in range(k):
            total[j] += logs[j]
            blocks[blk, j] += logs[j]
        if (t + 1) % every == 0 and (t + 1) // every <= n_records:
            r = (t + 1) // every - 1
            running_steps[r] = t + 1
            for j in range(k):
                running[r, j] = total[j] / (t + 1)
        step(x, params, nxt)
        x, nxt = nxt, x
    return _OK, n_steps, total, blocks, running, running_steps


def lyapunov_spectrum(
    step,
    jacobian,
    x0: np.ndarray,
    n_steps: int,
    transient: int = 0,
    k: int | None = None,
    n_blocks: int = 20,
    params: np.ndarray | None = None,
) -> LyapunovResult:
    """Leading ``k`` Lyapunov exponents of a map by the Benettin–QR method.

    Parameters
    ----------
    step, jacobian : numba ``@njit`` functions
        ``step(x, params, out)`` and ``jacobian(x, params, out)`` (see the module docstring).
    x0 : array_like, 1-D
        Initial state (finite).
    n_steps : int
        Tangent steps averaged over (after the transient); at least ``n_blocks``.
    transient : int
        Plain iterations before the tangent dynamics starts (docs/model.md §4.2: steps before exponents start).
    k : int, optional
        Number of exponents (default: the state dimension).
    n_blocks : int
        Number of equal blocks for the standard error (≥ 2; the last block takes the remainder).
    params : array_like, optional
        float64 parameters passed to ``step`` and ``jacobian`` (default: empty).

    Returns
    -------
    LyapunovResult

    Raises
    ------
    AnalysisError
        Invalid arguments, an orbit that becomes NaN/infinite, or a tangent vector that collapses to zero
        (singular Jacobian along the orbit: an exponent of −∞, e.g. a superstable orbit).
    """
    x = as_series(x0, name="x0")
    n = x.size
    k = n if k is None else int(k)
    if not 1 <= k <= n:
        raise AnalysisError(f"k: {k!r}; must lie in [1, {n}] (the state dimension)")
    if int(n_blocks) < 2:
        raise AnalysisError(f"n_blocks: {n_blocks!r}; at least 2 blocks needed for a standard error")
    if int(n_steps) < int(n_blocks):
        raise AnalysisError(f"n_steps: {n_steps!r}; must be at least n_blocks = {n_blocks}")
    if int(transient) < 0:
        raise AnalysisError(f"transient: {transient!r}; must be non-negative")
    for name, fn in (("step", step), ("jacobian", jacobian)):
        if not isinstance(fn, nb.core.dispatcher.Dispatcher):
            raise AnalysisError(f"{name}: {fn!r} is not a numba @njit function")
    par = np.zeros(0) if params is None else as_series(params, name="params", min_length=0)
    n_steps, n_blocks = int(n_steps), int(n_blocks)
    records = min(RUNNING_RECORDS, n_steps)
    try:
        status, at, total, blocks, running, running_steps = _benettin(
            step, jacobian, par, x, n_steps, int(transient), k, n_blocks, records
        )
    except nb.core.errors.TypingError as exc:
        raise AnalysisError(
            "step/jacobian: numba could not compile them as step(x, params, out) and jacobian(x, params, out) "
            f"with float64 arrays x, params (1-D), out (1-D resp. 2-D): {str(exc).splitlines()[0]}"
        ) from None
    if status == _DIVERGED:
        raise AnalysisError(f"the orbit or its tangent vectors became NaN or infinite at step {at}")
    if status == _DEGENERATE:
        raise AnalysisError(f"a tangent vector collapsed at step {at} (singular Jacobian: exponent −∞)")
    block_len = n_steps // n_blocks
    sizes = np.full(n_blocks, block_len, dtype=np.float64)
    sizes[-1] += n_steps - block_len * n_blocks
    means = blocks / sizes[:, None]
    exponents = total / n_steps
    stderr = means.std(axis=0, ddof=1) / np.sqrt(n_blocks)
    order = np.argsort(-exponents, kind="stable")
    return LyapunovResult(exponents[order], stderr[order], running[:, order], running_steps)
