"""The model's description: :class:`ModelSpec` (tables, PE weights, scalar parameters, checkpoint), the PID
gains :class:`Control`, and the validators every user-facing value goes through (docs/model.md §1, §5).

Everything a user can get wrong is checked here, before any numba compilation, and reported as a
:class:`~meanfield.errors.ConfigError` naming the key, the value and what is allowed.
"""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError
from ..short_repr import short_repr
from .sigma import SigmaOrders
from .state import State
from .weights import FEATURES, sign_patterns

#: Scalar model parameters that may be overridden or swept (numeric axes of a grid).
SCALAR_PARAMETERS = ("beta_o", "beta_att", "scaling_att", "scaling_o", "epsilon", "gamma")
#: Control-gain parameters, addressed as ``control.<name>`` in overrides and grids.
CONTROL_PARAMETERS = ("kp", "ki", "kd", "rho", "kappa", "i_max")
#: The largest M: of a model with its own sign patterns (``patterns``, K rows), and of one with all 2^(M-1) rows.
MAX_FEATURES = 256
MAX_DENSE_FEATURES = 16
#: The longest context L.
MAX_CONTEXT = 1024


def require_finite(key: str, value, allowed: str = "a finite number") -> float:
    """Return ``float(value)`` or raise ConfigError naming ``key`` when it is not a finite number (a string
    such as ``"127"`` is not a number)."""
    if isinstance(value, (str, bytes)):
        raise ConfigError(f"{key} = {value!r} is not allowed: must be {allowed}, not a string")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{key} = {value!r} is not allowed: must be {allowed}") from None
    if isinstance(value, bool) or not math.isfinite(number):
        raise ConfigError(f"{key} = {value!r} is not allowed: must be {allowed}")
    return number


def require_int(key: str, value, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` as int or raise ConfigError when it is not an integer in [minimum, maximum]."""
    allowed = f"an integer >= {minimum}" + (f" and <= {maximum}" if maximum is not None else "")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if not (isinstance(value, float) and value.is_integer()):
            raise ConfigError(f"{key} = {value!r} is not allowed: must be {allowed}")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        raise ConfigError(f"{key} = {value!r} is not allowed: must be {allowed}")
    return value


def require_interval(key: str, value, around: str, current: float) -> tuple[float, float]:
    """Return ``value`` as (low, high) or raise ConfigError unless it is two finite increasing numbers with
    ``current`` (the model's ``around``) between them."""
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ConfigError(f"{key} = {value!r} is not allowed: must be two numbers (low, high)") from None
    if not (math.isfinite(low) and math.isfinite(high)) or low >= high or not low <= current <= high:
        raise ConfigError(f"{key} = {value!r} is not allowed: must be two finite increasing numbers around the "
                          f"model's {around} = {current!r}")
    return low, high


@short_repr
@dataclass(frozen=True)
class Control:
    """PID control of the attention output over token steps (docs/model.md §5.1; after PIDformer, Nguyen et
    al. 2024).

    e_t = r - ã_{t-1};  I_t = ρ I_{t-1} + e_t (clamped to |I| <= i_max);
    ã_t = a_t + K_P e_t + K_I I_t + K_D (e_t - e_{t-1}),  with r = κ · (newest attention row of the start
    state) or the explicit ``reference`` vector. All gains 0 reproduce the uncontrolled map bitwise.
    """

    kp: float = 0.0
    ki: float = 0.0
    kd: float = 0.0
    rho: float = 1.0
    kappa: float = 1.0
    i_max: float = math.inf
    reference: tuple[float, ...] | None = None

    def __post_init__(self):
        for name in ("kp", "ki", "kd", "kappa"):
            object.__setattr__(self, name, require_finite(f"control.{name}", getattr(self, name)))
        rho = require_finite("control.rho", self.rho, "a number in [0, 1]")
        if not 0.0 <= rho <= 1.0:
            raise ConfigError(f"control.rho = {self.rho!r} is not allowed: must be a number in [0, 1]")
        object.__setattr__(self, "rho", rho)
        try:
            i_max = float(self.i_max)
        except (TypeError, ValueError):
            i_max = math.nan
        if math.isnan(i_max) or i_max <= 0:
            raise ConfigError(f"control.i_max = {self.i_max!r} is not allowed: must be a positive number or inf")
        object.__setattr__(self, "i_max", i_max)
        if self.reference is not None:
            ref = tuple(require_finite(f"control.reference[{i}]", v) for i, v in enumerate(self.reference))
            object.__setattr__(self, "reference", ref)

    @property
    def active(self) -> bool:
        """True when any gain is non-zero."""
        return self.kp != 0.0 or self.ki != 0.0 or self.kd != 0.0

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["reference"] = None if self.reference is None else list(self.reference)
        return out


@short_repr
@dataclass(frozen=True, eq=False)
class ModelSpec:
    """The mean-field model: coefficient tables, PE weights and scalar parameters (docs/model.md §1).

    Parameters
    ----------
    coefficients : dict of {α: (J, M) array}
        c^α_a(σ) of :mod:`meanfield.model.weights` (= K^α / 2^(M-1) of the reference, docs/model.md §1.1), one
        row per sign pattern σ_j: all J = 2^(M-1) of :func:`~meanfield.model.weights.sign_patterns` (M <= 16),
        or the K rows of ``patterns``.
    pe_weights : dict of {α: (M, P) array}
        W^α_PE, the positional-encoding part of the weights (P = 0 allowed).
    context : int
        L, the number of tokens attended.
    beta_o, beta_att, scaling_att, scaling_o, epsilon : float
        β_o, β_att, the two scalings and the PE weight ε (semantic weight w = 1 - ε).
    gamma : float or None
        γ set directly; when None (default) γ = β_att·scaling_att/√M as the reference computes it
        (docs/model.md §1). The paper's text says γ = β_att·scaling_att = 220, but the reference's N²√M
        attention normalisation makes the effective value 220/√3 = 127.017 (docs/model.md §8); that is
        what reproduces the paper's results, and it is the default here.
    weights : dict of {α: (M, N_se+P) ±1 array}, optional
        The matrices the tables came from (needed only to start from a token, docs/model.md §2.2).
    checkpoint : meanfield.model.state.State, optional
        Default start state (the paper preset carries the paper's checkpoint, docs/model.md §2.2).
    control : Control
        PID control gains (default: none).
    sigma : meanfield.model.sigma.SigmaOrders, optional
        The orders of the reference's sigma model (docs/model.md §10); the tables and PE weights must then be
        the ones they give (:meth:`~meanfield.model.sigma.SigmaOrders.tables`), the PE term is rectified, the PE
        weight is ε itself and ``mo_se`` carries no factor w.
    patterns : (K, M) array_like of ±1, optional
        The sign patterns σ_k (σ_0 = +1, distinct) of the coefficient rows, when the tables hold only the
        classes a model's columns carry (:func:`~meanfield.model.weights.sign_classes`): M up to 256, and the
        map's cost ∝ K·M instead of 2^(M-1)·M. None: all 2^(M-1) patterns.
    """

    coefficients: dict
    pe_weights: dict
    context: int = 4
    beta_o: float = 1.0
    beta_att: float = 2.2
    scaling_att: float = 100.0
    scaling_o: float = 1.0
    epsilon: float = 0.02
    gamma: float | None = None
    weights: dict | None = None
    checkpoint: State | None = None
    control: Control = field(default_factory=Control)
    sigma: SigmaOrders | None = None
    name: str = "custom"
    patterns: np.ndarray | None = None

    def __post_init__(self):
        set_ = object.__setattr__
        for key in ("beta_o", "beta_att", "scaling_att", "scaling_o"):
            set_(self, key, require_finite(key, getattr(self, key)))
        eps = require_finite("epsilon", self.epsilon, "a number in [0, 1]")
        if not 0.0 <= eps <= 1.0:
            raise ConfigError(f"epsilon = {self.epsilon!r} is not allowed: must be a number in [0, 1]")
        set_(self, "epsilon", eps)
        if self.gamma is not None:
            set_(self, "gamma", require_finite("gamma", self.gamma))
        set_(self, "context", require_int("context", self.context, 1, MAX_CONTEXT))
        if not isinstance(self.control, Control):
            raise ConfigError(f"control = {self.control!r} is not allowed: must be a meanfield.Control")
        set_(self, "coefficients", self._tables("coefficients", self.coefficients))
        n_features = self.coefficients["o"].shape[1]
        largest = MAX_DENSE_FEATURES if self.patterns is None else MAX_FEATURES
        if not 1 <= n_features <= largest:
            raise ConfigError(f"coefficients: M = {n_features} features is not allowed: must be 1..{largest}"
                              + (" (or build the model from weights: its own sign patterns allow M <= "
                                 f"{MAX_FEATURES})" if self.patterns is None else ""))
        if self.patterns is not None:
            set_(self, "patterns", self._check_patterns(self.patterns, n_features))
        set_(self, "pe_weights", self._tables("pe_weights", self.pe_weights))
        if self.sigma is not None:
            self._check_sigma()
        expected = (self.tanh_signs.shape[0], n_features)
        for alpha, table in self.coefficients.items():
            if table.shape != expected:
                raise ConfigError(f"coefficients.{alpha}: shape {table.shape} is not allowed: must be (J, M) = "
                                  f"{expected}, J the number of sign patterns (2^(M-1), or the rows of "
                                  "patterns or of a sigma model)")
        shapes = {t.shape for t in self.pe_weights.values()}
        if len(shapes) != 1 or next(iter(shapes))[0] != n_features:
            raise ConfigError(f"pe_weights: shapes {sorted(shapes)} are not allowed: all must be (M, P) "
                              f"with M = {n_features}")
        if self.checkpoint is not None:
            self.checkpoint.check(self)

    def _check_sigma(self):
        if not isinstance(self.sigma, SigmaOrders):
            raise ConfigError(f"sigma = {self.sigma!r} is not allowed: must be a meanfield.model.sigma.SigmaOrders")
        _, coefficients = self.sigma.tables()
        pe = self.sigma.pe_tables()
        if not all(np.array_equal(self.coefficients[a], coefficients[a]) and np.array_equal(self.pe_weights[a], pe[a])
                   for a in FEATURES):
            raise ConfigError("coefficients/pe_weights: not the tables of the model's sigma orders "
                              "(build the model with meanfield.presets.sigma)")

    def _check_patterns(self, patterns, n_features: int) -> np.ndarray:
        if self.sigma is not None:
            raise ConfigError("patterns: not allowed with a sigma model (its sign vectors come from its orders)")
        table = np.array(patterns, dtype=np.float64)
        if (table.ndim != 2 or table.shape[1] != n_features or not len(table) or not np.all(np.abs(table) == 1)
                or not np.all(table[:, 0] == 1)):
            raise ConfigError(f"patterns: shape {table.shape} is not allowed: must be (K, M = {n_features}), K >= 1, "
                              "entries ±1 and σ_0 = +1 in every row")
        if len(np.unique(table, axis=0)) != len(table):
            raise ConfigError(f"patterns: {len(table)} rows with repeats are not allowed: each sign class once")
        table.setflags(write=False)
        return table

    @property
    def tanh_signs(self) -> np.ndarray:
        """The rows G[j] of the tanh arguments β G[j]·A (docs/model.md §3 step 1), the sign patterns σ_j (the
        model's own ``patterns``, else all 2^(M-1)); or the sigma model's projected sign vectors
        (docs/model.md §10)."""
        if self.sigma is not None:
            return self.sigma.tables()[0]
        return sign_patterns(self.n_features) if self.patterns is None else self.patterns

    @staticmethod
    def _tables(key: str, tables) -> dict:
        if not isinstance(tables, dict) or set(tables) != set(FEATURES):
            got = sorted(tables) if isinstance(tables, dict) else type(tables).__name__
            raise ConfigError(f"{key}: {got} is not allowed: need exactly the tables {list(FEATURES)}")
        out = {}
        for alpha in FEATURES:
            table = np.array(tables[alpha], dtype=np.float64)
            if table.ndim != 2 or not np.all(np.isfinite(table)):
                raise ConfigError(f"{key}.{alpha}: must be a 2-D array of finite numbers; got shape "
                                  f"{table.shape}")
            table.setflags(write=False)
            out[alpha] = table
        return out

    @property
    def n_features(self) -> int:
        """M, the number of features/patterns."""
        return self.coefficients["o"].shape[1]

    @property
    def pe_bits(self) -> int:
        """P, the number of positional-encoding bits."""
        return self.pe_weights["o"].shape[1]

    def forcing_period(self, record_every: int = 1) -> int:
        """Period, in rows recorded every ``record_every`` steps, of the positional encoding that forces the map:
        the PE rows cycle with period L (docs/model.md §3, step 7); 1 without a PE code. A cycle of the forced
        map whose period divides it is a fixed point of the L-step map (docs/classification.md §2)."""
        if not self.pe_bits:
            return 1
        return self.context // math.gcd(self.context, int(record_every))

    @property
    def effective_gamma(self) -> float:
        """γ used in the softmax, ``gamma`` if set, else (1/√M)·β_att·scaling_att in the reference's order."""
        if self.gamma is not None:
            return self.gamma
        return (1 / np.sqrt(self.n_features)) * self.beta_att * self.scaling_att

    def replace(self, **overrides) -> ModelSpec:
        """A copy with scalar parameters (and ``control.<gain>``) replaced; unknown keys are a ConfigError."""
        control = {}
        plain = {}
        allowed = SCALAR_PARAMETERS + ("context", "control") + tuple(f"control.{c}" for c in CONTROL_PARAMETERS)
        for key, value in overrides.items():
            if key.startswith("control.") and key[8:] in CONTROL_PARAMETERS + ("reference",):
                control[key[8:]] = value
            elif key in allowed:
                plain[key] = value
            else:
                raise ConfigError(f"override {key!r} = {value!r} is not allowed: known keys are {list(allowed)}")
        if "beta_att" in plain and self.gamma is not None and "gamma" not in plain:
            raise ConfigError(f"beta_att = {plain['beta_att']!r} has no effect: gamma = {self.gamma} is set "
                              "explicitly (set gamma = None to derive it from beta_att)")
        if control:
            plain["control"] = dataclasses.replace(plain.get("control", self.control), **control)
        return dataclasses.replace(self, **plain)

    def to_dict(self) -> dict:
        """A JSON-ready description that :meth:`from_dict` turns back into an equal spec."""
        out = {key: getattr(self, key) for key in ("name", "context") + SCALAR_PARAMETERS}
        out["coefficients"] = {a: t.tolist() for a, t in self.coefficients.items()}
        out["pe_weights"] = {a: t.tolist() for a, t in self.pe_weights.items()}
        out["weights"] = None if self.weights is None else {a: np.asarray(t).tolist() for a, t in self.weights.items()}
        out["checkpoint"] = None if self.checkpoint is None else self.checkpoint.to_dict()
        out["control"] = self.control.to_dict()
        if self.sigma is not None:
            out["sigma"] = self.sigma.to_dict()
        if self.patterns is not None:
            out["patterns"] = self.patterns.tolist()
        return out

    @classmethod
    def from_dict(cls, data: dict) -> ModelSpec:
        data = dict(data)
        data["control"] = Control(**data.get("control", {}))
        if data.get("checkpoint") is not None:
            data["checkpoint"] = State(**data["checkpoint"])
        if data.get("sigma") is not None:
            data["sigma"] = SigmaOrders(**data["sigma"])
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def __eq__(self, other):
        return isinstance(other, type(self)) and self.to_json() == other.to_json()

    def __hash__(self):
        return hash(self.to_json())
