"""Textbook maps and the classification benchmark: attractors whose class is known from the literature.

The maps are numba functions with the signatures of :func:`meanfield.analysis.lyapunov_spectrum`
(``step(x, params, out)``, ``jacobian(x, params, out)``). :data:`CASES` lists the benchmark: each case is a
map, its parameters, a start and the number of iterations dropped before recording, with the class (and
period) that the cited source gives. Every label was also checked once here by methods independent of the
classifier (a long run's exact repetition for periods, a 2e5-step Benettin exponent for chaos, the band
intervals for band chaos, the lift's rotation number for circle maps).

:func:`series` and :func:`exponents` build a case's observable and its Lyapunov exponents (Benettin over the
same recorded steps; analytic zeros for the synthetic tori; NaN for an orbit that escapes, as the model's
simulator reports a run that broke down). Used by ``tests/analysis/test_benchmark.py`` and
``bench/classify.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numba as nb
import numpy as np

from meanfield.analysis import lyapunov_spectrum
from meanfield.compiled_cache import cached_jit
from meanfield.errors import AnalysisError

GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0
SILVER = np.sqrt(2.0) - 1.0
R_PERIOD3 = 1.0 + np.sqrt(8.0)  # onset of the logistic map's period-3 window (Saha & Strogatz 1995)


@nb.njit(cache=True)
def logistic_step(x, p, out):
    out[0] = p[0] * x[0] * (1.0 - x[0])


@nb.njit(cache=True)
def logistic_jacobian(x, p, out):
    out[0, 0] = p[0] * (1.0 - 2.0 * x[0])


@nb.njit(cache=True)
def henon_step(x, p, out):
    out[0] = 1.0 - p[0] * x[0] * x[0] + x[1]
    out[1] = p[1] * x[0]


@nb.njit(cache=True)
def henon_jacobian(x, p, out):
    out[0, 0] = -2.0 * p[0] * x[0]
    out[0, 1] = 1.0
    out[1, 0] = p[1]
    out[1, 1] = 0.0


@nb.njit(cache=True)
def circle_step(x, p, out):
    """Sine circle map θ' = θ + Ω − K/(2π) sin 2πθ (mod 1); p = (Ω, K)."""
    out[0] = (x[0] + p[0] - p[1] / (2.0 * np.pi) * np.sin(2.0 * np.pi * x[0])) % 1.0


@nb.njit(cache=True)
def circle_jacobian(x, p, out):
    out[0, 0] = 1.0 - p[1] * np.cos(2.0 * np.pi * x[0])


@nb.njit(cache=True)
def henon3_step(x, p, out):
    """Generalised Hénon map (Baier & Klein 1990), 3-D: x' = a − y² − b z, y' = x, z' = y; p = (a, b)."""
    out[0] = p[0] - x[1] * x[1] - p[1] * x[2]
    out[1] = x[0]
    out[2] = x[1]


@nb.njit(cache=True)
def henon3_jacobian(x, p, out):
    out[:, :] = 0.0
    out[0, 1] = -2.0 * x[1]
    out[0, 2] = -p[1]
    out[1, 0] = 1.0
    out[2, 1] = 1.0


@nb.njit(cache=True)
def delayed_logistic_step(x, p, out):
    """Delayed logistic map x' = a x (1 − y), y' = x (Maynard Smith 1968); p = (a,)."""
    out[0] = p[0] * x[0] * (1.0 - x[1])
    out[1] = x[0]


@nb.njit(cache=True)
def delayed_logistic_jacobian(x, p, out):
    out[0, 0] = p[0] * (1.0 - x[1])
    out[0, 1] = -p[0] * x[0]
    out[1, 0] = 1.0
    out[1, 1] = 0.0


@nb.njit(cache=True)
def ikeda_step(x, p, out):
    """Ikeda map z' = 1 + u z exp(i (0.4 − 6 / (1 + |z|²))) in real form (Ikeda 1979); p = (u,)."""
    t = 0.4 - 6.0 / (1.0 + x[0] * x[0] + x[1] * x[1])
    c, s = np.cos(t), np.sin(t)
    out[0] = 1.0 + p[0] * (x[0] * c - x[1] * s)
    out[1] = p[0] * (x[0] * s + x[1] * c)


@nb.njit(cache=True)
def ikeda_jacobian(x, p, out):
    r2 = 1.0 + x[0] * x[0] + x[1] * x[1]
    t = 0.4 - 6.0 / r2
    c, s = np.cos(t), np.sin(t)
    dt0, dt1 = 12.0 * x[0] / (r2 * r2), 12.0 * x[1] / (r2 * r2)
    a, b = x[0] * c - x[1] * s, x[0] * s + x[1] * c
    out[0, 0] = p[0] * (c - b * dt0)
    out[0, 1] = p[0] * (-s - b * dt1)
    out[1, 0] = p[0] * (s + a * dt0)
    out[1, 1] = p[0] * (c + a * dt1)


@nb.njit(cache=True)
def rotation2_step(x, p, out):
    """Rigid rotation of the 2-torus (x, y) -> (x + ω1, y + ω2) mod 1 (Kronecker; Katok & Hasselblatt 1995
    §1.4); p = (ω1, ω2). Its Jacobian is the identity: every exponent is exactly 0."""
    out[0] = (x[0] + p[0]) % 1.0
    out[1] = (x[1] + p[1]) % 1.0


@nb.njit(cache=True)
def rotation2_jacobian(x, p, out):
    out[:, :] = 0.0
    out[0, 0] = 1.0
    out[1, 1] = 1.0


@nb.njit(cache=True)
def gopy_step(x, p, out):
    """Quasi-periodically forced map x' = 2σ tanh(x) cos 2πθ, θ' = θ + ω mod 1 (Grebogi, Ott, Pelikan &
    Yorke 1984); p = (σ, ω). σ < 1: the torus x = 0 attracts, λ_x = ln σ; σ > 1: a strange nonchaotic
    attractor, λ_x < 0."""
    out[0] = 2.0 * p[0] * np.tanh(x[0]) * np.cos(2.0 * np.pi * x[1])
    out[1] = (x[1] + p[1]) % 1.0


@nb.njit(cache=True)
def gopy_jacobian(x, p, out):
    c, s, t = np.cos(2.0 * np.pi * x[1]), np.sin(2.0 * np.pi * x[1]), np.tanh(x[0])
    out[0, 0] = 2.0 * p[0] * (1.0 - t * t) * c
    out[0, 1] = -4.0 * np.pi * p[0] * t * s
    out[1, 0] = 0.0
    out[1, 1] = 1.0


@nb.njit(cache=True)
def qpf_logistic_step(x, p, out):
    """Quasi-periodically forced logistic map x' = α (1 + ε cos 2πθ) x (1 − x), θ' = θ + ω mod 1 (Heagy &
    Hammel 1994); p = (α, ε, ω)."""
    out[0] = p[0] * (1.0 + p[1] * np.cos(2.0 * np.pi * x[1])) * x[0] * (1.0 - x[0])
    out[1] = (x[1] + p[2]) % 1.0


@nb.njit(cache=True)
def qpf_logistic_jacobian(x, p, out):
    c, s = np.cos(2.0 * np.pi * x[1]), np.sin(2.0 * np.pi * x[1])
    out[0, 0] = p[0] * (1.0 + p[1] * c) * (1.0 - 2.0 * x[0])
    out[0, 1] = -2.0 * np.pi * p[0] * p[1] * s * x[0] * (1.0 - x[0])
    out[1, 0] = 0.0
    out[1, 1] = 1.0


MAPS = {
    "logistic": (logistic_step, logistic_jacobian),
    "henon": (henon_step, henon_jacobian),
    "circle": (circle_step, circle_jacobian),
    "henon3": (henon3_step, henon3_jacobian),
    "delayed_logistic": (delayed_logistic_step, delayed_logistic_jacobian),
    "ikeda": (ikeda_step, ikeda_jacobian),
    "rotation2": (rotation2_step, rotation2_jacobian),
    "gopy": (gopy_step, gopy_jacobian),
    "qpf_logistic": (qpf_logistic_step, qpf_logistic_jacobian),
}
#: Maps observed through angles: the features are (x, cos 2π·angle) — the state's angle is a coordinate mod 1.
ANGLE_COORDINATE = {"rotation2": None, "gopy": 1, "qpf_logistic": 1}


@cached_jit()
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


@nb.njit(cache=True)
def circle_rotation_number(omega, k, n=200_000, transient=1000):
    """Rotation number of the sine circle map from its lift, (θ_n − θ_0) / n (error ≤ 1/n)."""
    theta = 0.1
    for _ in range(transient):
        theta = theta + omega - k / (2.0 * np.pi) * np.sin(2.0 * np.pi * theta)
    start = theta
    for _ in range(n):
        theta = theta + omega - k / (2.0 * np.pi) * np.sin(2.0 * np.pi * theta)
    return (theta - start) / n


@cache
def omega_for_rotation(k: float, rho: float) -> float:
    """Ω at which the circle map with coupling K < 1 has rotation number ρ (bisection on the devil's
    staircase, which is continuous and non-decreasing in Ω; Arnold 1965). The result's rotation number is
    within ~1/n = 5e-6 of ρ: for an irrational ρ the Arnold tongues in that interval have denominators
    q > 300, far too narrow at K ≤ 0.9 to be hit in double precision."""
    lo, hi = 0.0, 1.0
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if circle_rotation_number(mid, k) < rho else (lo, mid)
    return 0.5 * (lo + hi)


@cache
def tongue_centre(k: float, p: int, q: int) -> float:
    """Middle of the Arnold tongue of rotation number p/q at coupling K: halfway between the largest Ω with
    ρ < p/q and the smallest Ω with ρ > p/q (both by bisection; inside the tongue |ρ_n − p/q| ≤ 1/n)."""
    slack = 2e-5  # > 1/n for the lift estimate over n = 2e5 steps

    def edge(pred):
        lo, hi = 0.0, 1.0
        for _ in range(50):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if pred(circle_rotation_number(mid, k)) else (lo, mid)
        return 0.5 * (lo + hi)

    return 0.5 * (edge(lambda r: r < p / q - slack) + edge(lambda r: r <= p / q + slack))


@dataclass(frozen=True)
class Case:
    """One benchmark attractor.

    ``system`` names a map of :data:`MAPS`, or ``"torus"`` (synthetic quasi-periodic series, ``params`` =
    frequencies); ``params`` may hold callables evaluated lazily (Ω found from a rotation number);
    ``transient`` iterations are dropped before recording (0 keeps the approach to the attractor in the
    series on purpose); ``truth`` is a label of :data:`meanfield.analysis.LABELS` and ``period`` the period
    of a periodic truth (1 for fixed points). ``also`` lists other labels the literature allows (a strange
    nonchaotic attractor is quasi_periodic by its exponents, but its irregular series cannot be told from
    chaos by the series tests: ``unresolved`` is allowed, ``chaotic`` is wrong). ``offset`` and ``scale``
    map the observable x -> offset + scale·x (the label must not change, docs/classification.md §2)."""

    name: str
    truth: str
    system: str
    params: tuple
    x0: tuple = (0.3,)
    transient: int = 1000
    period: int | None = None
    also: tuple = ()
    offset: float = 0.0
    scale: float = 1.0

    def parameters(self) -> np.ndarray:
        return np.array([p() if callable(p) else p for p in self.params], dtype=np.float64)


def _logistic(name, truth, r, period=None, transient=1000, x0=0.3):
    return Case(name, truth, "logistic", (r,), (x0,), transient, period)


def _circle(name, truth, omega, k, period=None):
    return Case(name, truth, "circle", (omega, k), (0.1,), 1000, period)


#: Affine changes of the observable applied to every case that stays bounded (:data:`SCALED_CASES`): a
#: small attractor far from the origin (offset 1e4 extents), a large one (offset -1e3, scale 7) and a tiny
#: one (scale 1e-6). Beyond offsets of ~1e5 extents float64 stops resolving slow tori (docs/classification.md §2).
TRANSFORMS = ((100.0, 1e-2), (-1e3, 7.0), (0.0, 1e-6))


CASES = [
    # --- logistic map x' = r x (1 - x) -------------------------------------------------------------------
    # fixed point x* = 1 - 1/r, multiplier 2 - r: stable for 1 < r < 3 (May 1976)
    _logistic("logistic r=2.8 fixed point", "fixed_point", 2.8, 1),
    # multiplier 2 - r = -0.999: slowly converging, started off the fixed point with no transient dropped
    _logistic("logistic r=2.999 slow fixed point", "fixed_point", 2.999, 1, transient=0),
    # period-doubling cascade (Feigenbaum 1978; Strogatz 1994 §10.2): period 2 for 3 < r < 3.449490,
    # 4 up to 3.544090, 8 up to 3.564407, 16 up to 3.568759, 32 up to 3.569692
    _logistic("logistic r=3.2 period 2", "periodic", 3.2, 2),
    # 2-cycle multiplier 4 + 2r - r^2 = -0.9976 (close to its flip at 1 + sqrt(6)), no transient dropped
    _logistic("logistic r=3.449 slow period 2", "periodic", 3.449, 2, transient=0),
    _logistic("logistic r=3.5 period 4", "periodic", 3.5, 4),
    _logistic("logistic r=3.55 period 8", "periodic", 3.55, 8),
    _logistic("logistic r=3.566 period 16", "periodic", 3.566, 16),
    _logistic("logistic r=3.5695 period 32", "periodic", 3.5695, 32),
    # superstable cycles R_1 = 1 + sqrt(5) (period 2) and R_2 = 3.4985616993 (period 4) (Feigenbaum 1978)
    _logistic("logistic R1 superstable period 2", "periodic", 1.0 + np.sqrt(5.0), 2),
    _logistic("logistic R2 superstable period 4", "periodic", 3.4985616993, 4),
    # periodic windows inside the chaotic range (May 1976 Fig. 4; Strogatz 1994 §10.2, §10.4):
    # period 3 at r = 3.83, its doubling to period 6 (3.8415 < r < 3.8443), period 5 near 3.74, period 7 near 3.702
    _logistic("logistic r=3.83 period 3", "periodic", 3.83, 3),
    _logistic("logistic r=3.8425 period 6", "periodic", 3.8425, 6),
    _logistic("logistic r=3.74 period 5", "periodic", 3.74, 5),
    _logistic("logistic r=3.702 period 7", "periodic", 3.702, 7),
    # just above the tangent bifurcation r_c = 1 + sqrt(8) that opens the period-3 window (Saha & Strogatz
    # 1995): a laminar/chaotic transient, then a 3-cycle whose multiplier -> 1 as r -> r_c (slow approach;
    # at r_c + 1e-8 the cycle is reached ~12000 steps in, inside the decision window of a 2e4 run)
    _logistic("logistic r=3.8285 transient then period 3", "periodic", 3.8285, 3, transient=0),
    _logistic("logistic r=r_c+1e-7 slow period 3", "periodic", R_PERIOD3 + 1e-7, 3, transient=0),
    _logistic("logistic r=r_c+1e-8 very slow period 3", "periodic", R_PERIOD3 + 1e-8, 3, transient=0),
    # band chaos between the band-merging points 3.574804 (8 -> 4), 3.592572 (4 -> 2), 3.678573 (2 -> 1)
    # (Grossmann & Thomae 1977; Lorenz 1980): bands visited in a fixed cycle
    _logistic("logistic r=3.6 2-band chaos", "chaotic", 3.6),
    _logistic("logistic r=3.585 4-band chaos", "chaotic", 3.585),
    _logistic("logistic r=3.573 8-band chaos", "chaotic", 3.573),
    # 3-band chaos at the end of the period-3 window, before its interior crisis at r = 3.8568
    # (Grebogi, Ott & Yorke 1982)
    _logistic("logistic r=3.853 3-band chaos", "chaotic", 3.853),
    # one-band chaos; r = 4 is conjugate to the doubling map, lambda = ln 2 (Ulam & von Neumann 1947)
    _logistic("logistic r=3.7 chaos", "chaotic", 3.7),
    _logistic("logistic r=3.9 chaos", "chaotic", 3.9),
    _logistic("logistic r=4 chaos", "chaotic", 4.0),
    # type-I intermittency just below r_c: laminar phases near the ghost 3-cycle between chaotic bursts
    # (Pomeau & Manneville 1980; Strogatz 1994 §10.4)
    _logistic("logistic r=3.8282 intermittent chaos", "chaotic", 3.8282),
    # r > 4 maps part of [0, 1] outside; orbits escape to -infinity (Devaney 1989 §1.5)
    _logistic("logistic r=4.1 escapes", "divergent", 4.1),
    # --- sine circle map theta' = theta + Omega - K/(2 pi) sin 2 pi theta, observed as (cos, sin) -----------
    # K < 1: invertible; irrational rotation numbers give quasi-periodic orbits on the circle (Arnold 1965;
    # Shenker 1982 for the golden mean); Omega is found from the rotation number, not guessed
    _circle("circle K=0 golden rotation", "quasi_periodic", GOLDEN, 0.0),
    _circle("circle K=0.5 golden rotation", "quasi_periodic", lambda: omega_for_rotation(0.5, GOLDEN), 0.5),
    _circle("circle K=0.9 golden rotation", "quasi_periodic", lambda: omega_for_rotation(0.9, GOLDEN), 0.9),
    _circle("circle K=0.5 silver rotation", "quasi_periodic", lambda: omega_for_rotation(0.5, SILVER), 0.5),
    # near-rational rotations: a pure rotation 1e-6 off 1/3, and rho = [0; 3, 30, 1, 1, ...] (noble, so
    # Diophantine) at K = 0.5, just outside the 1/3 tongue
    _circle("circle K=0 rotation 1/3 + 1e-6", "quasi_periodic", 1.0 / 3.0 + 1e-6, 0.0),
    _circle("circle K=0.5 rotation [0;3,30,1,1,...]", "quasi_periodic",
            lambda: omega_for_rotation(0.5, 1.0 / (3.0 + 1.0 / (30.0 + GOLDEN))), 0.5),
    # Arnold tongues: mode locking at rational rotation numbers (Jensen, Bak & Bohr 1984)
    _circle("circle K=0.9 1/2 tongue", "periodic", 0.5, 0.9, 2),
    _circle("circle K=0.9 1/3 tongue", "periodic", lambda: tongue_centre(0.9, 1, 3), 0.9, 3),
    _circle("circle K=0.7 2/5 tongue", "periodic", lambda: tongue_centre(0.7, 2, 5), 0.7, 5),
    # K > 1: non-invertible; chaos between overlapping tongues (Jensen, Bak & Bohr 1984; lambda ~ 0.48
    # here), and the 0/1 tongue's fixed point at small Omega
    _circle("circle K=2 Omega=0.35 chaos", "chaotic", 0.35, 2.0),
    _circle("circle K=2 Omega=0.1 fixed point", "fixed_point", 0.1, 2.0, 1),
    # --- Henon map x' = 1 - a x^2 + y, y' = b x (Henon 1976), b = 0.3 ----------------------------------------
    Case("henon a=1.4 chaos", "chaotic", "henon", (1.4, 0.3), (0.1, 0.1)),
    Case("henon a=1.2 chaos", "chaotic", "henon", (1.2, 0.3), (0.1, 0.1)),
    # 4-piece attractor after the cascade (band chaos, lambda ~ 0.14)
    Case("henon a=1.08 4-band chaos", "chaotic", "henon", (1.08, 0.3), (0.1, 0.1)),
    # the b = 0.3 cascade (Henon 1976; Devaney 1989 §2.7): fixed point up to a = 0.3675, period 2 up to 0.9125,
    # then 4, 8, ...; and the period-7 window at a = 1.25 (reached after a chaotic transient)
    Case("henon a=0.2 fixed point", "fixed_point", "henon", (0.2, 0.3), (0.1, 0.1), period=1),
    Case("henon a=0.9 period 2", "periodic", "henon", (0.9, 0.3), (0.1, 0.1), period=2),
    Case("henon a=1.0 period 4", "periodic", "henon", (1.0, 0.3), (0.1, 0.1), period=4),
    Case("henon a=1.05 period 8", "periodic", "henon", (1.05, 0.3), (0.1, 0.1), period=8),
    Case("henon a=1.25 period 7 after transient", "periodic", "henon", (1.25, 0.3), (0.1, 0.1), 0, 7),
    # beyond a ~ 1.42 the attractor is destroyed and orbits escape (Henon 1976)
    Case("henon a=1.5 escapes", "divergent", "henon", (1.5, 0.3), (0.1, 0.1)),
    # generalised Henon map: two positive exponents (Baier & Klein 1990)
    Case("generalised henon hyperchaos", "hyperchaotic", "henon3", (1.76, 0.1), (0.0, 0.0, 0.0)),
    # --- delayed logistic map: Neimark-Sacker bifurcation at a = 2, invariant circle, locking, breakdown ----
    # (Aronson, Chory, Hall & McGehee 1982): fixed point with complex multipliers, |mu|^2 = a - 1
    Case("delayed logistic a=1.9 spiral fixed point", "fixed_point", "delayed_logistic", (1.9,), (0.3, 0.3),
         period=1),
    Case("delayed logistic a=1.998 slow spiral", "fixed_point", "delayed_logistic", (1.998,), (0.3, 0.3), 0, 1),
    Case("delayed logistic a=2.01 small circle", "quasi_periodic", "delayed_logistic", (2.01,), (0.3, 0.3), 20000),
    Case("delayed logistic a=2.1 circle", "quasi_periodic", "delayed_logistic", (2.1,), (0.3, 0.3)),
    Case("delayed logistic a=2.17 circle", "quasi_periodic", "delayed_logistic", (2.17,), (0.3, 0.3)),
    Case("delayed logistic a=2.18 locked 1/7", "periodic", "delayed_logistic", (2.18,), (0.3, 0.3), period=7),
    Case("delayed logistic a=2.2 locked 1/7", "periodic", "delayed_logistic", (2.2,), (0.3, 0.3), period=7),
    # after the circle breaks down: weak (lambda ~ 0.06) and developed (lambda ~ 0.18) chaos
    Case("delayed logistic a=2.25 chaos", "chaotic", "delayed_logistic", (2.25,), (0.3, 0.3)),
    Case("delayed logistic a=2.27 chaos", "chaotic", "delayed_logistic", (2.27,), (0.3, 0.3)),
    # past the attractor's boundary crisis orbits escape (Aronson et al. 1982)
    Case("delayed logistic a=2.3 escapes", "divergent", "delayed_logistic", (2.3,), (0.3, 0.3)),
    # --- Ikeda map: fixed point, period doubling, chaotic attractor at u = 0.9 (Ikeda 1979;
    # Hammel, Jones & Moloney 1985)
    Case("ikeda u=0.3 fixed point", "fixed_point", "ikeda", (0.3,), (0.1, 0.1), period=1),
    Case("ikeda u=0.5 period 2", "periodic", "ikeda", (0.5,), (0.1, 0.1), period=2),
    Case("ikeda u=0.6 period 4", "periodic", "ikeda", (0.6,), (0.1, 0.1), period=4),
    Case("ikeda u=0.7 chaos", "chaotic", "ikeda", (0.7,), (0.1, 0.1)),
    Case("ikeda u=0.9 chaos", "chaotic", "ikeda", (0.9,), (0.1, 0.1)),
    # --- tori: sums of incommensurate rotations (quasi-periodic functions; Bohr 1925; Das, Saiki, Sander &
    # Yorke 2017), frequencies golden, silver, pi - 3
    Case("2-torus golden/silver", "quasi_periodic", "torus", (GOLDEN, SILVER)),
    Case("2-torus nonlinear", "quasi_periodic", "torus", (GOLDEN, SILVER, 0.0)),
    Case("3-torus golden/silver/pi-3", "quasi_periodic", "torus", (GOLDEN, SILVER, np.pi - 3.0)),
    # --- tori with exact zero exponents from the Benettin algorithm (a Jacobian of ones and zeros: the
    # finite-time exponents are rounding, ~1e-17, with block errors as small)
    Case("rigid rotation of T2 golden/silver", "quasi_periodic", "rotation2", (GOLDEN, SILVER), (0.1, 0.2)),
    # --- quasi-periodically forced maps (forcing frequency the golden mean; observed as (x, cos 2 pi theta))
    # GOPY map, sigma < 1: the torus x = 0 attracts (lambda_x = ln sigma, Grebogi et al. 1984); x underflows
    # to exactly 0, so feature 0 is constant while feature 1 carries the torus
    Case("GOPY sigma=0.5 torus x=0", "quasi_periodic", "gopy", (0.5, GOLDEN), (0.5, 0.1)),
    # GOPY map, sigma = 1.5: strange nonchaotic attractor (Grebogi et al. 1984, Fig. 1; lambda_x < 0)
    Case("GOPY sigma=1.5 strange nonchaotic", "quasi_periodic", "gopy", (1.5, GOLDEN), (0.5, 0.1),
         also=("unresolved",)),
    # forced logistic map (Heagy & Hammel 1994): alpha (1 + eps cos) stays in (1, 3): a smooth period-1 torus;
    # in (3, 1 + sqrt 6): the doubled torus (the 2-cycle's branches, visited alternately)
    Case("forced logistic a=2.6 e=0.1 smooth torus", "quasi_periodic", "qpf_logistic", (2.6, 0.1, GOLDEN),
         (0.3, 0.1)),
    Case("forced logistic a=3.2 e=0.05 doubled torus", "quasi_periodic", "qpf_logistic", (3.2, 0.05, GOLDEN),
         (0.3, 0.1)),
    # --- long cycles of high-denominator mode locking: the critical circle map K = 1 locks on the Fibonacci
    # approximants 8/13 and 21/34 of the golden mean in tongues of widths ~ q^-2.3 (Jensen, Bak & Bohr 1984)
    _circle("circle K=1 8/13 tongue", "periodic", lambda: tongue_centre(1.0, 8, 13), 1.0, 13),
    _circle("circle K=1 21/34 tongue", "periodic", lambda: tongue_centre(1.0, 21, 34), 1.0, 34),
]

#: Every bounded case again under each affine change of its observable (:data:`TRANSFORMS`).
SCALED_CASES = [Case(f"{c.name} [x -> {a:g} + {b:g} x]", c.truth, c.system, c.params, c.x0, c.transient, c.period,
                     c.also, a, b) for a, b in TRANSFORMS for c in CASES if c.truth != "divergent"]


def _torus(freqs: np.ndarray, n: int) -> np.ndarray:
    """Two observables on a torus: a sum of rotations, or (a trailing 0 in ``freqs``) a nonlinear function
    of the two angles."""
    k = np.arange(n, dtype=np.float64)[:, None]
    angle = 2.0 * np.pi * ((k * freqs[freqs > 0]) % 1.0)
    if np.any(freqs == 0):
        a, b = angle[:, 0], angle[:, 1]
        x = (1.0 + 0.4 * np.cos(b)) * np.cos(a) + 0.3 * np.sin(a + 2.0 * b)
        y = np.tanh(np.sin(b) + 0.5 * np.cos(a))
        return np.column_stack([x, y])
    weights = 0.6 ** np.arange(angle.shape[1])
    return np.column_stack([np.cos(angle) @ weights, np.sin(angle) @ weights])


def series(case: Case, n: int) -> np.ndarray:
    """The case's recorded observable, shape (n, features): the map's state (the circle map as
    (cos 2πθ, sin 2πθ), angles as cos 2π·angle, :data:`ANGLE_COORDINATE`), after ``case.transient`` dropped
    iterations, mapped by x -> ``case.offset`` + ``case.scale``·x."""
    return case.offset + case.scale * _observable(case, n)


def _observable(case: Case, n: int) -> np.ndarray:
    params = case.parameters()
    if case.system == "torus":
        return _torus(params, n)
    with np.errstate(over="ignore", invalid="ignore"):
        rows = orbit(MAPS[case.system][0], params, case.x0, n, case.transient)
    if case.system == "circle":
        return np.column_stack([np.cos(2 * np.pi * rows[:, 0]), np.sin(2 * np.pi * rows[:, 0])])
    if case.system in ANGLE_COORDINATE:
        angle = ANGLE_COORDINATE[case.system]
        if angle is None:
            return np.column_stack([np.cos(2 * np.pi * rows[:, 0]), np.sin(2 * np.pi * rows[:, 1])])
        rows = rows.copy()
        rows[:, angle] = np.cos(2 * np.pi * rows[:, angle])
    return rows


def exponents(case: Case, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Descending Lyapunov exponents and block standard errors over the same n recorded steps (Benettin et
    al. 1980, 20 blocks); exact zeros for the synthetic tori (rigid rotations); NaN when the orbit escapes."""
    params = case.parameters()
    if case.system == "torus":
        k = int(np.count_nonzero(params))
        return np.zeros(k), np.zeros(k)
    step, jac = MAPS[case.system]
    try:
        res = lyapunov_spectrum(step, jac, case.x0, n, transient=case.transient, params=params)
    except AnalysisError:
        k = len(case.x0)
        return np.full(k, np.nan), np.full(k, np.nan)
    return res.exponents, res.stderr


def is_correct(case: Case, label: str, period: int | None, with_exponents: bool) -> bool:
    """The label matches the truth (the period too); without exponents hyperchaos counts as chaos, since a
    series alone cannot count positive exponents."""
    truth = case.truth
    if truth == "hyperchaotic" and not with_exponents:
        truth = "chaotic"
    if label in case.also:
        return True
    return label == truth and (truth != "periodic" or period == case.period)
