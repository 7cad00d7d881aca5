"""Textbook maps for the analysis tests, as numba functions with the signatures of
:func:`meanfield.analysis.lyapunov_spectrum` (``step(x, params, out)``, ``jacobian(x, params, out)``)."""

from types import SimpleNamespace

import numba as nb
import numpy as np
import pytest


@nb.njit
def logistic_step(x, p, out):
    out[0] = p[0] * x[0] * (1.0 - x[0])


@nb.njit
def logistic_jacobian(x, p, out):
    out[0, 0] = p[0] * (1.0 - 2.0 * x[0])


@nb.njit
def henon_step(x, p, out):
    out[0] = 1.0 - p[0] * x[0] * x[0] + x[1]
    out[1] = p[1] * x[0]


@nb.njit
def henon_jacobian(x, p, out):
    out[0, 0] = -2.0 * p[0] * x[0]
    out[0, 1] = 1.0
    out[1, 0] = p[1]
    out[1, 1] = 0.0


@nb.njit
def circle_step(x, p, out):
    """Sine circle map θ' = θ + Ω − K/(2π) sin 2πθ (mod 1); p = (Ω, K)."""
    out[0] = (x[0] + p[0] - p[1] / (2.0 * np.pi) * np.sin(2.0 * np.pi * x[0])) % 1.0


@nb.njit
def circle_jacobian(x, p, out):
    out[0, 0] = 1.0 - p[1] * np.cos(2.0 * np.pi * x[0])


@nb.njit
def henon3_step(x, p, out):
    """Generalised Hénon map (Baier & Klein 1990), 3-D: x' = a − y² − b z, y' = x, z' = y; p = (a, b)."""
    out[0] = p[0] - x[1] * x[1] - p[1] * x[2]
    out[1] = x[0]
    out[2] = x[1]


@nb.njit
def henon3_jacobian(x, p, out):
    out[:, :] = 0.0
    out[0, 1] = -2.0 * x[1]
    out[0, 2] = -p[1]
    out[1, 0] = 1.0
    out[2, 1] = 1.0


@nb.njit
def _orbit(step, params, x0, n, transient):
    x = x0.copy()
    nxt = np.empty_like(x)
    rows = np.empty((n, x.size))
    for t in range(transient + n):
        if t >= transient:
            rows[t - transient] = x
        step(x, params, nxt)
        x[:] = nxt
    return rows


def orbit(step, params, x0, n, transient=0):
    """``n`` states (rows) of the map after ``transient`` plain iterations."""
    return _orbit(step, np.asarray(params, float), np.asarray(x0, float), n, transient)


MAPS = SimpleNamespace(
    logistic=(logistic_step, logistic_jacobian),
    henon=(henon_step, henon_jacobian),
    circle=(circle_step, circle_jacobian),
    henon3=(henon3_step, henon3_jacobian),
    orbit=orbit,
)


@pytest.fixture(scope="session")
def maps():
    """Namespace of (step, jacobian) pairs and the ``orbit`` helper."""
    return MAPS
