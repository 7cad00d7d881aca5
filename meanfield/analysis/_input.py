"""Input validation shared by the analysis functions.

Every public analysis function turns its array input into a float64 array through :func:`as_series`, so that
empty, non-finite, too-short or wrongly shaped input raises :class:`~meanfield.errors.AnalysisError` with a
message naming the argument, instead of returning a silently wrong number.
"""

from __future__ import annotations

import numpy as np

from meanfield.errors import AnalysisError


def as_series(
    x: object,
    *,
    name: str = "x",
    min_length: int = 1,
    ndim: tuple[int, ...] = (1,),
    finite: bool = True,
) -> np.ndarray:
    """Return ``x`` as a float64 array with time on axis 0, after checking it.

    Parameters
    ----------
    x : array_like
        The series (time on axis 0; a second axis, where allowed, holds features).
    name : str
        Argument name used in error messages.
    min_length : int
        Minimum number of samples along axis 0.
    ndim : tuple of int
        Allowed numbers of dimensions.
    finite : bool
        If True, NaN or infinite values raise.

    Returns
    -------
    numpy.ndarray
        float64 view or copy of ``x``.

    Raises
    ------
    AnalysisError
        Wrong dimensionality, fewer than ``min_length`` samples (including empty input), an empty feature
        axis, a non-numeric array, or non-finite values when ``finite`` is True.
    """
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise AnalysisError(f"{name}: cannot be read as a float array ({exc})") from None
    if arr.ndim not in ndim:
        allowed = " or ".join(f"{d}-D" for d in ndim)
        raise AnalysisError(f"{name}: got a {arr.ndim}-D array of shape {arr.shape}; expected {allowed}")
    if arr.shape[0] < min_length:
        raise AnalysisError(f"{name}: {arr.shape[0]} samples, at least {min_length} needed")
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise AnalysisError(f"{name}: shape {arr.shape} has no features")
    if finite and not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise AnalysisError(f"{name}: {bad} NaN or infinite values; analysis needs finite data")
    return arr
