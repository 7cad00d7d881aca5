"""Side-by-side comparison of sweep files of PID-controlled variants (docs/model.md §5.4).

Reads sweep files written by :func:`meanfield.sweep` (``runs/pid_*.toml``): 1-D sweeps over β_o — one per
variant, on the same grid — and 2-D sweeps over (β_o, a gain). Every point is classified by
:func:`meanfield.analysis.classify` from its stored ``mo_se`` tail and Lyapunov exponents; per variant the
comparison table holds the class fractions, the representation-collapse metrics of :mod:`meanfield.studies.pid`
computed from the stored ``att``/``mo_se`` tails, the robustness to start perturbations and the integral
wind-up (both re-simulated at a few probe β values from the model stored in the file).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..analysis import LABELS
from ..analysis.labels import label_names
from ..errors import StoreError
from ..sweeps.results.labels import point_labels
from ..sweeps.store import read_sweep
from .pid import effective_rank, nanmean, robustness, token_spread

#: Class columns of the table (hyperchaotic counts as chaotic; points not computed are left out).
CLASSES = tuple(name for name in LABELS if name != "hyperchaotic")


@dataclass
class Sweep:
    """A sweep file read back: its name, grid axes and coordinates, model, arrays and point labels."""

    path: str
    name: str
    axes: list
    coords: dict
    model: object
    run: dict
    arrays: dict
    labels: np.ndarray = field(default=None)

    @property
    def done(self) -> np.ndarray:
        return self.arrays["done"].astype(bool)


def load_sweep(path) -> Sweep:
    """Read a sweep file (StoreError when it is not one, or lacks the ``mo_se`` tail needed to classify)."""
    names = ("done", "lyapunov", "lyapunov_stderr", "tail_mo_se", "tail_att", "hist")
    data = read_sweep(path, names)
    if "tail_mo_se" not in data.arrays:
        raise StoreError(f"{data.path!r} has no mo_se tail: classification needs [record] observables = "
                         "[\"mo_se\", ...] and tail > 0 (see runs/pid_*.toml)")
    return Sweep(data.path, data.run["name"], data.axes, data.coords, data.model(),
                 data.run, data.arrays)


def classify_sweep(sweep: Sweep) -> np.ndarray:
    """Label of every grid point (grid shape; "missing" where not computed), from the evidence stored by
    the sweep or its stored tail and exponents (:func:`meanfield.sweeps.results.labels.point_labels`)."""
    codes, _ = point_labels(sweep.path)
    names = label_names(codes)
    names[names == "hyperchaotic"] = "chaotic"
    sweep.labels = names
    return sweep.labels


def class_fractions(labels: np.ndarray) -> dict:
    """Fraction of the computed points in each class of :data:`CLASSES`."""
    computed = labels[labels != "missing"]
    return {c: float(np.mean(computed == c)) if computed.size else float("nan") for c in CLASSES}


def _gains(model) -> str:
    c = model.control
    parts = [f"{k.upper()}={getattr(c, k):g}" for k in ("kp", "ki", "kd") if getattr(c, k)]
    if c.ki and c.rho != 1:
        parts.append(f"ρ={c.rho:g}")
    if c.ki and np.isfinite(c.i_max):
        parts.append(f"Imax={c.i_max:g}")
    return " ".join(parts) or "none"


def summarise(sweep: Sweep, probe: int = 12, deltas=(1e-6, 1e-3, 1e-1), directions: int = 4,
              seed: int = 0) -> dict:
    """One row of the comparison table for a 1-D β_o sweep (see the module docstring)."""
    labels = sweep.labels if sweep.labels is not None else classify_sweep(sweep)
    context = sweep.model.context
    ok = sweep.done & (labels != "divergent")
    row = {"variant": sweep.name, "gains": _gains(sweep.model), "points": int(sweep.done.sum()),
           **class_fractions(labels)}
    lam = sweep.arrays.get("lyapunov")
    row["mean_lambda1"] = nanmean(lam[ok, 0]) if lam is not None and ok.any() else float("nan")
    if "tail_att" in sweep.arrays:
        row["effective_rank"] = nanmean(effective_rank(sweep.arrays["tail_att"][ok], context))
    row["token_spread"] = nanmean(token_spread(sweep.arrays["tail_mo_se"][ok], context))
    grid = sweep.coords["beta_o"]
    betas = grid[np.unique(np.linspace(0, len(grid) - 1, min(probe, len(grid))).round().astype(int))]
    steps, transient = sweep.run["steps"], sweep.run["transient"]
    rob = robustness(sweep.model, betas, steps, transient, deltas=deltas, directions=directions, seed=seed)
    for k, delta in enumerate(deltas):
        row[f"traj_dist_{delta:g}"] = nanmean(rob["trajectory_distance"][:, k])
        row[f"attr_dist_{delta:g}"] = nanmean(rob["attractor_distance"][:, k])
    row["probe_divergent"] = float(np.mean(rob["divergent"]))
    row["max_integral"] = float(np.nanmax(rob["max_integral"])) if sweep.model.control.ki else float("nan")
    row["robustness"] = rob
    return row


def check_same_grid(sweeps) -> None:
    """1-D sweeps compared side by side must share the β_o grid."""
    grids = [s.coords.get("beta_o") for s in sweeps]
    for s, g in zip(sweeps, grids):
        if s.axes != ["beta_o"]:
            raise StoreError(f"{s.path!r}: axes {s.axes}; the side-by-side comparison needs 1-D beta_o sweeps")
        if g.shape != grids[0].shape or not np.allclose(g, grids[0], rtol=0, atol=1e-12):
            raise StoreError(f"{s.path!r}: its beta_o grid differs from that of {sweeps[0].path!r}; compare runs on "
                             "the same grid")


def _cell(value) -> str:
    if isinstance(value, str):
        return value
    if not np.isfinite(value):
        return "—"
    return f"{value:.3g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.1e}"


def table_columns(rows) -> list:
    """Column keys of the table, in display order."""
    keys = ["variant", "gains", "points", *CLASSES, "mean_lambda1", "effective_rank", "token_spread"]
    keys += [k for k in rows[0] if k.startswith(("traj_dist", "attr_dist"))]
    return [k for k in keys + ["probe_divergent", "max_integral"] if k in rows[0]]


def table_markdown(rows) -> str:
    """The comparison table as Markdown (no NaN: missing values print as —)."""
    keys = table_columns(rows)
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(_cell(r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def table_csv(rows, path) -> None:
    """The comparison table as CSV (empty cells for missing values)."""
    import csv
    keys = table_columns(rows)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(keys)
        for r in rows:
            writer.writerow([r[k] if isinstance(r[k], str) or np.isfinite(r[k]) else "" for k in keys])


def structure(model) -> str:
    """The variant's name from its non-zero gains: ``"none"``, ``"P"``, ``"PI"``, ``"PD"``, ``"PID"``, ..."""
    c = model.control
    return "".join(letter for letter, gain in (("P", c.kp), ("I", c.ki), ("D", c.kd)) if gain) or "none"


def variant_order(sweep: Sweep) -> tuple:
    """Sort key of a 1-D sweep: none, P, PI, PD, PID (fewer terms first, I before D), then the gains, then the
    name; the comparison's panels, colours and table rows follow it, whatever order the files came in."""
    c = sweep.model.control
    return (bool(c.kp) + bool(c.ki) + bool(c.kd), bool(c.kd), bool(c.ki), c.kp, c.ki, c.kd, sweep.name)


def map_order(sweep: Sweep) -> tuple:
    """Sort key of a 2-D (β_o, gain) sweep: the gain's place in K_P, K_I, K_D, ρ, κ, I_max, then the name."""
    from ..model.spec import CONTROL_PARAMETERS
    gains = [a[8:] for a in sweep.axes if a.startswith("control.")]
    place = CONTROL_PARAMETERS.index(gains[0]) if gains and gains[0] in CONTROL_PARAMETERS else len(CONTROL_PARAMETERS)
    return (place, sweep.name)


def compare(paths, probe: int = 12, seed: int = 0, progress: bool = False):
    """Load, classify and summarise sweep files. Returns (1-D sweeps, their table rows, 2-D sweeps), each in
    a fixed order (:func:`variant_order`, :func:`map_order`). ``progress``: a bar over the files on stderr."""
    from ..progress import progress_bar
    sweeps = [load_sweep(p) for p in paths]            # every file is checked before any work
    lines = sorted((s for s in sweeps if len(s.axes) == 1), key=variant_order)
    maps = sorted((s for s in sweeps if len(s.axes) == 2), key=map_order)
    if lines:
        check_same_grid(lines)
    rows = []
    with progress_bar(len(sweeps), "compare", enabled=progress, unit="file") as bar:
        for s in maps + lines:
            classify_sweep(s)
            if len(s.axes) == 1:
                rows.append(summarise(s, probe=probe, seed=seed))
            bar.update(1)
    return lines, rows, maps


__all__ = ["CLASSES", "Sweep", "load_sweep", "classify_sweep", "class_fractions", "summarise", "check_same_grid",
           "table_markdown", "table_csv", "compare", "structure", "variant_order", "map_order"]
