"""The state the map acts on, position codes, and the reference's starts (docs/model.md §2): token, correlation
index, checkpoint file.

State: the attention window A (D×M, row 0 newest, D <= L) and the PE window Π (L×P, row 0 = position code of
the token generated in the next step), plus, for a PID-controlled run, the controller's state (docs/model.md §5).
A State is checked against a model by :meth:`State.check`; it needs only the model's sizes, so this module
does not import :mod:`meanfield.model.spec` (which holds a State as a model's checkpoint).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..short_repr import short_repr
from .weights import FEATURES


def position_code(n: int, pe_bits: int) -> np.ndarray:
    """pos(n) = 2·bits(n) - 1 with P binary digits, most significant first (docs/model.md §2.1)."""
    return np.array([2.0 * ((n >> (pe_bits - 1 - i)) & 1) - 1.0 for i in range(pe_bits)])


@short_repr
@dataclass(frozen=True, eq=False)
class State:
    """A start or final state: attention window ``att`` (D×M, newest first) and PE window ``pe`` (L×P).

    ``control`` (optional, 3×M) is the PID controller's state [r, I, e_prev] (docs/model.md §5.1): a
    controlled run's final state carries it, and a controlled run started from it continues the loop (same
    reference, integral and previous error) instead of restarting with I = 0.
    """

    att: np.ndarray
    pe: np.ndarray
    control: np.ndarray | None = None

    def __post_init__(self):
        if self.control is not None:
            control = np.array(self.control, dtype=np.float64, ndmin=2)
            if control.shape[0] != 3 or not np.all(np.isfinite(control)):
                raise ConfigError(f"start.control: {control.tolist()} is not allowed: must be 3 finite rows "
                                  "[reference, integral, previous error] of M entries")
            control.setflags(write=False)
            object.__setattr__(self, "control", control)
        att = np.array(self.att, dtype=np.float64, ndmin=2)
        pe = np.array(self.pe, dtype=np.float64).reshape(len(self.pe), -1) if len(self.pe) else np.zeros((0, 0))
        for key, arr in (("att", att), ("pe", pe)):
            if not np.all(np.isfinite(arr)):
                raise ConfigError(f"start.{key}: {arr.tolist()} is not allowed: entries must be finite")
        if not np.all(np.isin(pe, (-1.0, 1.0))):
            raise ConfigError(f"start.pe: {pe.tolist()} is not allowed: entries must be +1 or -1")
        att.setflags(write=False)
        pe.setflags(write=False)
        object.__setattr__(self, "att", att)
        object.__setattr__(self, "pe", pe)

    def check(self, model) -> State:
        """Raise ConfigError unless this state fits ``model`` (D in 1..L rows of M, L×P PE window)."""
        n_features, context, pe_bits = model.n_features, model.context, model.pe_bits
        depth = self.att.shape[0]
        if self.att.shape[1] != n_features or not 1 <= depth <= context:
            raise ConfigError(f"start.att: shape {self.att.shape} is not allowed: must be (D, M) with "
                              f"1 <= D <= L = {context} and M = {n_features}")
        if pe_bits and self.pe.shape != (context, pe_bits):
            raise ConfigError(f"start.pe: shape {self.pe.shape} is not allowed: must be (L, P) = "
                              f"({context}, {pe_bits})")
        if self.control is not None and self.control.shape != (3, n_features):
            raise ConfigError(f"start.control: shape {self.control.shape} is not allowed: must be (3, M) = "
                              f"(3, {n_features})")
        return self

    @classmethod
    def from_pattern(cls, model, row: int = 0, feature: str = "o", reset_pe: bool = False) -> State:
        """The start from one of the model's own weight rows, :meth:`from_token` of W^feature[row] (the
        reference's ``ini_token_idx`` start; ``reset_pe`` sets its PE bits to pos(0), as the reference's
        bifurcation script does, docs/model.md §2.2)."""
        return cls.from_token(model, pattern_token(model, row, feature, reset_pe))

    @classmethod
    def from_token(cls, model, x0) -> State:
        """The reference's start from a token x0 ∈ {±1}^(N_se+P) (docs/model.md §2.2).

        A = [m^v_0] with m^v_0 = w (x0_se·W^v_se)/N_se + ε (x0_pe·W^v_PE)/P (the last P entries of x0 are
        its PE bits); Π = [pos(0), pos(L-1), ..., pos(1)]. x0 itself is not in the attended window.
        """
        if model.weights is None:
            raise ConfigError("start.token: this model has no weight matrices (built from tables); "
                              "give an explicit state instead")
        x0 = np.asarray(x0, dtype=np.float64)
        w_v = np.asarray(model.weights["v"], dtype=np.float64)
        if x0.shape != (w_v.shape[1],) or not np.all(np.isin(x0, (-1.0, 1.0))):
            raise ConfigError(f"start.token: {x0.shape} is not allowed: must be {w_v.shape[1]} entries of ±1")
        pe_bits = model.pe_bits
        n_se = w_v.shape[1] - pe_bits
        w = 1 - model.epsilon
        semantic = w * (w_v[:, :n_se] @ x0[:n_se]) / n_se
        pe_part = (1 - w) * (w_v[:, n_se:] @ x0[n_se:]) / pe_bits if pe_bits else 0.0
        return cls(att=(semantic + pe_part)[None, :], pe=rotating_pe_window(model))

    @classmethod
    def from_correlation(cls, model, index: int) -> State:
        """The reference's start from a correlation index (its manual-orders mode, docs/model.md §2.2).

        A = [one-hot of order_v = index] with order_v = roll(0..M-1, -1) the value order of the manual orders
        (docs/model.md §1.2), or the sigma model's order_B^v (docs/model.md §10.2), the m^v of "token" ``index``;
        Π as for a token start.
        """
        n_features = model.n_features
        index = require_index("start.index", index, n_features)
        sigma = getattr(model, "sigma", None)
        order_v = np.roll(np.arange(n_features), -1) if sigma is None else sigma.value_order()
        return cls(att=(order_v == index).astype(np.float64)[None, :], pe=rotating_pe_window(model))

    @classmethod
    def from_checkpoint_file(cls, path, key: str = "start.file") -> State:
        """A state from the reference's checkpoint file (``.npz`` with ``att_window`` (D×M) and ``pe_window``
        (L×P), as its ``save_context`` writes them, docs/model.md §2.2); ConfigError naming ``key`` when the
        file cannot be read or lacks them."""
        try:
            with np.load(path) as data:
                arrays = {name: np.array(data[name]) for name in ("att_window", "pe_window") if name in data}
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{key} = {str(path)!r} cannot be read as a .npz checkpoint: {exc}") from None
        if len(arrays) != 2:
            raise ConfigError(f"{key} = {str(path)!r} is not allowed: a checkpoint needs the arrays att_window "
                              "(D×M) and pe_window (L×P)")
        return cls(att=arrays["att_window"], pe=arrays["pe_window"])

    def to_dict(self) -> dict:
        out = {"att": self.att.tolist(), "pe": self.pe.tolist()}
        if self.control is not None:
            out["control"] = self.control.tolist()
        return out


def rotating_pe_window(model) -> np.ndarray:
    """Π = [pos(0), pos(L-1), ..., pos(1)], the PE window of the reference's token and correlation starts
    (docs/model.md §2.2). The reference encodes positions 0..L-1 only with P bits, so it refuses L > 2^P."""
    context, pe_bits = model.context, model.pe_bits
    if pe_bits and context > 2 ** pe_bits:
        raise ConfigError(f"context = {context} is not allowed with a token or correlation start: the positions "
                          f"0..L-1 need L <= 2^pe_bits = {2 ** pe_bits} (or start from a checkpoint or state)")
    positions = [position_code(n, pe_bits) for n in [0] + list(range(context - 1, 0, -1))]
    return np.array(positions).reshape(context, pe_bits)


def require_index(key: str, index, n_features: int) -> int:
    """``index`` as an int in 0..M-1, or ConfigError naming ``key``."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < n_features:
        raise ConfigError(f"{key} = {index!r} is not allowed: must be an integer in 0..{n_features - 1}")
    return int(index)


def pattern_token(model, row: int = 0, feature: str = "o", reset_pe: bool = False) -> np.ndarray:
    """Token x0 = W^feature[row] (the reference's ``ini_token_idx`` start); ``reset_pe`` sets its PE bits
    to -1 = pos(0), as the reference's bifurcation script does (docs/model.md §2.2)."""
    if model.weights is None:
        raise ConfigError("start.token: this model has no weight matrices to take a token from")
    if feature not in FEATURES or not 0 <= row < model.n_features:
        raise ConfigError(f"start.token: row={row!r}, feature={feature!r} not allowed: feature in "
                          f"{list(FEATURES)}, row in 0..{model.n_features - 1}")
    x0 = np.array(model.weights[feature][row], dtype=np.float64)
    if reset_pe and model.pe_bits:
        x0[-model.pe_bits:] = -1.0
    return x0


@short_repr
@dataclass(frozen=True, eq=False)
class StartWindows:
    """Many full start windows sharing one PE window — a basin plane's pixels (docs/basins.md): ``att``
    (n, L, M) and ``pe`` (L, P). The batch kernels take them as arrays, without a :class:`State` per start;
    the n starts are what ``[State(att=att[i], pe=pe) for i in range(n)]`` would be."""

    att: np.ndarray
    pe: np.ndarray

    def __post_init__(self):
        att = np.array(self.att, dtype=np.float64)
        if att.ndim != 3 or not np.all(np.isfinite(att)):
            raise ConfigError(f"start.att: an array of shape {att.shape} is not allowed: must be (n, L, M) finite "
                              "windows")
        pe = State(att=att[0] if len(att) else np.zeros((1, att.shape[-1])), pe=self.pe).pe   # the PE checks
        att.setflags(write=False)
        object.__setattr__(self, "att", att)
        object.__setattr__(self, "pe", pe)

    def __len__(self) -> int:
        return self.att.shape[0]

    def check(self, model) -> StartWindows:
        """Raise ConfigError unless every window is a full window of ``model`` with its L×P PE window."""
        if self.att.shape[1:] != (model.context, model.n_features):
            raise ConfigError(f"start.att: windows of shape {self.att.shape[1:]} are not allowed: must be full "
                              f"windows (L, M) = ({model.context}, {model.n_features})")
        State(att=self.att[0] if len(self) else np.zeros((1, model.n_features)), pe=self.pe).check(model)
        return self

