"""Basin-boundary measures: basin entropy, uncertainty exponent, Wada test, tipping probabilities (docs/basins.md).

Generic: arrays (or a vectorised final-state callable) in, numbers out. Attractor ids are integers; the
census marks an unsettled start with −1, and each function says what it does with negative ids.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import ndimage

from meanfield.errors import AnalysisError, ConfigError


def _id_array(basins: object, name: str, *, ndim: int | None = None) -> np.ndarray:
    """``basins`` as an int64 array, refusing non-integer or wrongly shaped input with a one-line ConfigError."""
    arr = np.asarray(basins)
    if arr.dtype.kind not in "iu":
        raise ConfigError(f"{name}: dtype {arr.dtype}; expected an integer array of attractor ids")
    if ndim is not None and arr.ndim != ndim:
        raise ConfigError(f"{name}: a {arr.ndim}-D array of shape {arr.shape}; expected a {ndim}-D array")
    if arr.size == 0:
        raise ConfigError(f"{name}: empty array of shape {arr.shape}; expected at least one start")
    return arr.astype(np.int64, copy=False)


def basin_entropy(basins: object, box: int = 5) -> tuple[float, float]:
    """Basin entropy ``S_b`` and boundary basin entropy ``S_bb`` of a 2-D basin map (docs/basins.md §1).

    Daza, Wagemakers, Georgeot, Guéry-Odelin & Sanjuán, Sci. Rep. 6, 31416 (2016): the map is cut into
    non-overlapping boxes of ``box × box`` cells (rows and columns left over at the high end are dropped); in
    box ``i`` the Gibbs entropy ``S_i = −Σ_j p_ij ln p_ij`` of the fractions ``p_ij`` of the ids;
    ``S_b`` is the mean of ``S_i`` over all boxes, ``S_bb`` over the boxes holding more than one id
    (0 where there are none). ``S_bb > ln 2`` is a sufficient condition for a fractal boundary.

    Every distinct id is its own outcome, negative ones included: the unsettled starts (−1) count as one more
    outcome, so an unsettled patch raises the entropy where it touches a basin (docs/basins.md §1).

    Raises
    ------
    ConfigError
        ``basins`` not a 2-D integer array, ``box`` not an integer ≥ 2, or the map smaller than one box.
    """
    arr = _id_array(basins, "basins", ndim=2)
    if isinstance(box, bool) or not isinstance(box, (int, np.integer)) or box < 2:
        raise ConfigError(f"box: {box!r}; expected an integer >= 2 (cells per box side)")
    box = int(box)
    ny, nx = arr.shape[0] // box, arr.shape[1] // box
    if ny == 0 or nx == 0:
        raise ConfigError(f"basins: shape {arr.shape} is smaller than one box of {box}x{box}; "
                          f"expected at least {box} rows and {box} columns")
    cells = arr[: ny * box, : nx * box].reshape(ny, box, nx, box).transpose(0, 2, 1, 3).reshape(ny * nx, box * box)
    _, codes = np.unique(cells, return_inverse=True)
    codes = codes.reshape(cells.shape)
    k = int(codes.max()) + 1
    counts = np.bincount((np.arange(ny * nx)[:, None] * k + codes).ravel(), minlength=ny * nx * k)
    p = counts.reshape(ny * nx, k) / float(box * box)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=1)
    boundary = np.count_nonzero(counts.reshape(ny * nx, k), axis=1) > 1
    s_bb = float(s[boundary].mean()) if boundary.any() else 0.0
    return float(s.mean()), s_bb


def _uncertain_fraction(final_state: Callable, starts: np.ndarray, base: np.ndarray, eps: float,
                        directions: np.ndarray) -> float:
    """Fraction of ``starts`` whose id changes under at least one of the perturbations ``±eps · directions``."""
    n, d = starts.shape
    m = directions.shape[1]  # directions: (n, m, d), unit vectors
    shifted = np.concatenate([starts[:, None, :] + eps * directions, starts[:, None, :] - eps * directions], axis=1)
    ids = _call(final_state, shifted.reshape(n * 2 * m, d)).reshape(n, 2 * m)
    return float(np.mean(np.any(ids != base[:, None], axis=1)))


def _call(final_state: Callable, points: np.ndarray) -> np.ndarray:
    out = np.asarray(final_state(points))
    if out.shape != (points.shape[0],) or out.dtype.kind not in "iub":
        raise ConfigError(f"final_state: returned dtype {out.dtype}, shape {out.shape} for {points.shape[0]} "
                          f"starts; expected {points.shape[0]} integer ids")
    return out.astype(np.int64, copy=False)


def uncertainty_exponent(
    final_state: Callable[[np.ndarray], np.ndarray],
    starts: object,
    epsilons: object,
    *,
    seed: int = 0,
    scheme: str = "axes",
) -> tuple[float, float, np.ndarray]:
    """Uncertainty exponent ``α`` of ``f(ε) ∝ ε^α`` with its standard error (docs/basins.md §2).

    Grebogi, McDonald, Ott & Yorke, Phys. Lett. A 99, 415 (1983); McDonald, Grebogi, Ott & Yorke, Physica D
    17, 125 (1985): a start is ε-uncertain if a perturbation of size ε changes its final attractor; ``f(ε)``
    is the fraction of uncertain starts, and ``α = d − D`` with ``D`` the boundary's box-counting dimension
    in ``d`` dimensions (``α = 1`` for a smooth boundary in the plane).

    Perturbations (``scheme``): ``"axes"`` (default) — ``x ± ε e_k`` for every coordinate ``k`` (``2d``
    perturbed copies; uncertain if any copy's id differs from the start's); ``"random"`` — ``x ± ε u`` with one
    unit vector ``u`` per start drawn from ``numpy.random.default_rng(seed)`` (2 copies). The same starts are
    used at every ε. ``α`` and its standard error come from ordinary least squares of ``ln f`` on ``ln ε``
    (the error from the residuals, ``n − 2`` degrees of freedom; it includes the sampling noise of ``f`` and
    any log-periodic wiggle, but not a systematic curvature outside the scaling range).

    Parameters
    ----------
    final_state : ~collections.abc.Callable
        Maps an ``(n, d)`` float array of starts to ``n`` integer attractor ids (vectorised); any system.
    starts : array_like, shape (n, d)
        Finite starts.
    epsilons : array_like, 1-D
        At least 3 distinct positive perturbation sizes.

    Returns
    -------
    alpha, stderr : float
    fractions : numpy.ndarray
        ``f(ε)`` at each ε, in the order given.

    Raises
    ------
    ConfigError
        Bad ``starts``, ``epsilons``, ``scheme`` or ``final_state`` output.
    AnalysisError
        ``f(ε) = 0`` at some ε (no uncertain start: more starts or larger ε needed).
    """
    x = np.asarray(starts, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1 or not np.all(np.isfinite(x)):
        raise ConfigError(f"starts: shape {x.shape}; expected a finite (n, d) array with n, d >= 1")
    eps = np.asarray(epsilons, dtype=np.float64)
    if eps.ndim != 1 or np.unique(eps).size < 3 or not np.all(np.isfinite(eps)) or np.any(eps <= 0):
        raise ConfigError(f"epsilons: {eps.tolist()!r}; expected at least 3 distinct finite values > 0")
    n, d = x.shape
    if scheme == "axes":
        directions = np.broadcast_to(np.eye(d), (n, d, d))
    elif scheme == "random":
        u = np.random.default_rng(seed).normal(size=(n, 1, d))
        directions = u / np.linalg.norm(u, axis=2, keepdims=True)
    else:
        raise ConfigError(f"scheme: {scheme!r}; expected 'axes' or 'random'")
    base = _call(final_state, x)
    f = np.array([_uncertain_fraction(final_state, x, base, float(e), directions) for e in eps])
    if np.any(f == 0):
        raise AnalysisError(f"uncertainty_exponent: no uncertain start at epsilon {eps[f == 0].tolist()}; "
                            "use more starts or larger epsilons")
    lx, ly = np.log(eps), np.log(f)
    dx = lx - lx.mean()
    alpha = float(np.sum(dx * (ly - ly.mean())) / np.sum(dx * dx))
    resid = ly - ly.mean() - alpha * dx
    stderr = float(np.sqrt(np.sum(resid**2) / (eps.size - 2) / np.sum(dx * dx)))
    return alpha, stderr, f


def map_uncertainty_exponent(basins: object, cells: object = (1, 2, 4, 8, 16)) -> tuple[float, float, np.ndarray]:
    """Uncertainty exponent ``α`` ± SE of a stored 2-D basin map (docs/basins.md §2): :func:`uncertainty_exponent`
    with the map itself as the final-state function, every cell at least ``max(cells)`` cells from the edges as
    a start and ``ε`` = each of ``cells`` (at least 3 distinct integers ≥ 1) in cells; the axes scheme then
    compares a cell with the cells ``k`` rows and ``k`` columns away. Every id is its own outcome (−1
    included). Returns ``(alpha, stderr, fractions)``."""
    ids = _id_array(basins, "basins", ndim=2)
    steps = np.asarray(cells)
    if steps.ndim != 1 or steps.dtype.kind not in "iu" or np.unique(steps).size < 3 or steps.min() < 1:
        raise ConfigError(f"cells = {cells!r} is not allowed: must be at least 3 distinct integers >= 1")
    k = int(steps.max())
    if min(ids.shape) <= 2 * k:
        raise ConfigError(f"cells = {cells!r} is not allowed with a {ids.shape[0]} x {ids.shape[1]} map: the "
                          "largest must be below half the map's smaller side")
    rows, cols = np.mgrid[k:ids.shape[0] - k, k:ids.shape[1] - k]
    starts = np.column_stack([rows.ravel(), cols.ravel()]).astype(np.float64)

    def final_state(points: np.ndarray) -> np.ndarray:
        cell = np.rint(points).astype(np.int64)
        return ids[cell[:, 0], cell[:, 1]]

    return uncertainty_exponent(final_state, starts, steps.astype(np.float64))


def wada_merging(basins: object, *, max_radius: int = 5) -> tuple[bool, np.ndarray]:
    """Merging-method Wada test on a 2-D basin map (docs/basins.md §3).

    Daza, Wagemakers & Sanjuán, "Ascertaining when a basin is Wada: the merging method", Sci. Rep. 8
    (2018), doi:10.1038/s41598-018-28119-0. A cell is on the boundary ``B`` if its 3 × 3 neighbourhood
    (clipped at the edges) holds more than one id; merging all basins but ``i`` gives the two-basin boundary
    ``B_i`` (cells whose neighbourhood holds ``i`` and another id). The map is Wada if every ``B_i``
    fattened by ``r_i`` cells covers ``B`` with ``r_i ≤ max_radius`` for every basin, at least 3 basins
    being present. ``r_i`` is the largest Chebyshev distance (in cells) from a cell of ``B`` to ``B_i``.
    At a finite resolution a boundary that is Wada needs a few cells of fattening (the third basin's
    fingers are narrower than a cell somewhere); a non-Wada boundary needs a radius of the order of the
    map's features. ``max_radius`` sits between the two: default 5 cells (3 was fixed before validation;
    Newton's method for z³ − 1 needed 2–4 cells at 256²–768², four quadrants 127 at 256², docs/basins.md §3).

    Negative ids (unsettled) are refused: an unsettled patch is neither a basin nor a boundary.

    Returns
    -------
    is_wada : bool
    radii : numpy.ndarray of int
        ``r_i`` per basin, in increasing id order (0 where ``B`` is empty).

    Raises
    ------
    ConfigError
        ``basins`` not a 2-D integer array, negative ids, ``max_radius`` not an integer ≥ 0.
    """
    arr = _id_array(basins, "basins", ndim=2)
    if isinstance(max_radius, bool) or not isinstance(max_radius, (int, np.integer)) or max_radius < 0:
        raise ConfigError(f"max_radius: {max_radius!r}; expected an integer >= 0 (cells)")
    if arr.min() < 0:
        raise ConfigError(f"basins: holds negative id {int(arr.min())}; expected ids >= 0 "
                          "(the Wada test does not treat unsettled starts)")
    ids = np.unique(arr)
    boundary = ndimage.maximum_filter(arr, size=3, mode="nearest") != ndimage.minimum_filter(arr, size=3,
                                                                                            mode="nearest")
    radii = np.zeros(ids.size, dtype=np.int64)
    if not boundary.any():
        return False, radii
    for k, i in enumerate(ids):
        inside = (arr == i).astype(np.int8)
        b_i = ndimage.maximum_filter(inside, size=3, mode="nearest") != ndimage.minimum_filter(inside, size=3,
                                                                                               mode="nearest")
        if not b_i.any():
            radii[k] = max(arr.shape)
            continue
        dist = ndimage.distance_transform_cdt(~b_i, metric="chessboard")
        radii[k] = int(dist[boundary].max())
    return bool(ids.size >= 3 and radii.max() <= max_radius), radii


def tipping_probabilities(before: object, after: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tipping probabilities between the attractors of two parameter values (docs/basins.md §4).

    Kaszás, Feudel & Tél, Phys. Rev. E 100 (2019), "tipping probabilities": for the same starts, ``before``
    holds each start's attractor id at the old parameter and ``after`` at the new one; ``matrix[i, j]`` is
    the fraction of the old basin of ``ids_before[i]`` whose starts go to ``ids_after[j]`` (rows sum to 1).
    Negative ids (unsettled) are ordinary ids here: their row and column are kept, nothing is dropped.

    Raises
    ------
    ConfigError
        Non-integer arrays, or shapes that differ.
    """
    b = _id_array(before, "before").ravel()
    a_arr = _id_array(after, "after")
    if a_arr.size != b.size or a_arr.shape != np.shape(before):
        raise ConfigError(f"after: shape {a_arr.shape}; expected the shape of before, {np.shape(before)}")
    a = a_arr.ravel()
    ids_b, ib = np.unique(b, return_inverse=True)
    ids_a, ia = np.unique(a, return_inverse=True)
    counts = np.bincount(ib * ids_a.size + ia, minlength=ids_b.size * ids_a.size).reshape(ids_b.size, ids_a.size)
    return counts / counts.sum(axis=1, keepdims=True), ids_b, ids_a
