"""Models, starts and kernel arguments shared by the CUDA backend tests."""
import os

import numpy as np

import meanfield as mf

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def random_model(seed: int, n_features: int = 4, n_se: int = 40, pe_bits: int = 2, context: int = 5,
                 beta_o: float = 1.4) -> mf.ModelSpec:
    """A model built from random ±1 weight matrices (any M)."""
    return mf.presets.random(seed, n_features, n_se, pe_bits, context, beta_o=beta_o)


def random_start(model: mf.ModelSpec, seed: int, depth: int | None = None) -> mf.State:
    """A random start window of ``depth`` rows (default L) and a random ±1 PE window."""
    rng = np.random.default_rng(seed)
    depth = model.context if depth is None else depth
    att = rng.uniform(-0.8, 0.8, size=(depth, model.n_features))
    pe = rng.choice([-1.0, 1.0], size=(model.context, model.pe_bits))
    return mf.State(att=att, pe=pe)


def kernel_batch(model, parameters, start, steps, transient, n_exponents, record_every=1, n_blocks=4,
                 qr_every=1, selection=(0, 1, 2, 3, 4, 5)):
    """The :class:`~meanfield.model.layout.Batch` a backend gets from :func:`meanfield.simulation.simulate_batch`."""
    from meanfield.model.layout import Batch, batch_parameters, control_start, map_tables
    from meanfield.simulation import _start_arrays
    params = batch_parameters(model, parameters)
    att0, pe0, depth0 = _start_arrays(model, start, params.shape[0])[:3]
    ctrl0 = control_start(params, att0)
    coef, signs, w_pe = map_tables(model)
    return Batch(coef, signs, w_pe, params, pe0, att0, depth0, ctrl0, steps, transient, record_every,
                 np.asarray(selection, dtype=np.int64), n_exponents, qr_every, n_blocks)


#: On a real GPU the device's tanh/exp (libdevice) and its fused multiply-adds round differently from the CPU's,
#: by an ulp or two per operation, so the two trajectories part by the map's own amplification of rounding
#: (numba's simulator runs the CPU's operations: equal to TOL there). The bound of a device comparison is the
#: CPU's own spread under a start moved by MOVE (relative, ~50 ulp: more than the rounding of every step of the
#: short runs compared here, which a non-expanding orbit keeps at ~steps·ulp < TOL), times SPREAD_FACTOR.
TOL = 1e-12
MOVE = 1e-14
SPREAD_FACTOR = 10
#: Block sums of log|R_jj| on a GPU also carry the rounding of the tangent vectors' re-orthonormalisation, which
#: a moved start does not reproduce; they are compared to this relative tolerance besides: 1e-3 of a block's
#: sum is 1e-3/(block length) per step on an exponent, far below the standard errors reported with them.
BLOCK_SUMS_RTOL = 1e-3


def moved(att: np.ndarray, seed: int = 0) -> np.ndarray:
    """``att`` with every entry moved by MOVE relative, with random signs and sizes."""
    rng = np.random.default_rng(seed)
    return att * (1.0 + MOVE * rng.standard_normal(att.shape))


def moved_state(state: mf.State) -> mf.State:
    return mf.State(att=moved(state.att), pe=state.pe)


def spread_bound(expected, shifted):
    """The tolerance of comparing a device's output with the CPU's ``expected``: TOL plus SPREAD_FACTOR times
    |``shifted`` - ``expected``| (``shifted`` the CPU's output from the moved start), its largest over each
    row of each point (axes from 2 on; one value per point for 1-d and 2-d outputs), so a difference counts
    against the sensitivity of the point and time at which it appears."""
    expected, shifted = np.asarray(expected, dtype=float), np.asarray(shifted, dtype=float)
    with np.errstate(invalid="ignore"):                # inf - inf where both are -inf: counted as equal
        gap = np.where(shifted == expected, 0.0, np.abs(shifted - expected))
    axes = tuple(range(2, gap.ndim)) if gap.ndim > 2 else tuple(range(1, gap.ndim))
    return TOL + SPREAD_FACTOR * (gap.max(axis=axes, keepdims=True) if axes and gap.size else gap)


def assert_device_close(got, expected, bound, name=""):
    """|got - expected| <= bound elementwise (equal infinities and NaNs count as equal)."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    same = (got == expected) | (np.isnan(got) & np.isnan(expected))
    with np.errstate(invalid="ignore"):
        gap = np.where(same, 0.0, np.abs(got - expected))
    excess = gap - bound
    if np.any(excess > 0) or np.any(np.isnan(gap)):
        worst = np.nanargmax(excess)
        raise AssertionError(f"{name}: {np.count_nonzero(excess > 0)} of {gap.size} entries beyond the bound; the "
                             f"worst |got - expected| = {gap.flat[worst]:.3g} against a bound of "
                             f"{np.broadcast_to(bound, gap.shape).flat[worst]:.3g}")
