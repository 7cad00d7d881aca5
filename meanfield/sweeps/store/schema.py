"""What every variable of a result file means: ``long_name`` and ``units`` (CF conventions), and the flag
meanings of the status variables (docs/storage.md §1). :mod:`.store` attaches these attributes when it writes a
file, so ``xarray`` shows them and plots label their axes from them.

Everything in these files is dimensionless (magnetisations, attention values, inverse temperatures, gains,
counts, iteration numbers): ``units`` is ``"1"``, the CF spelling of a pure number, and ``long_name`` says what
is counted or measured, e.g. "per step" for Lyapunov exponents. Flag variables carry ``flag_values`` and
``flag_meanings`` instead of units, string coordinates only a ``long_name``.
"""
from __future__ import annotations

import numpy as np

#: The recorded observables (docs/model.md §3.2).
OBSERVABLE_NAMES = {"att": "attention output a", "mo": "output mean field m^o",
                    "mo_se": "semantic output mean field m^{o,se}", "mv": "value mean field m^v of the newest row",
                    "mq": "query mean field m^q", "mk": "key mean field m^k of the newest row"}

#: Sweepable parameters (docs/model.md §1, §5.1) and the finite network's size (§6).
PARAMETER_NAMES = {"beta_o": "output inverse temperature beta_o", "beta_att": "attention inverse temperature beta_att",
                   "scaling_att": "attention scaling", "scaling_o": "output scaling",
                   "epsilon": "positional-code weight epsilon", "gamma": "attention gain gamma",
                   "control.kp": "proportional gain K_P", "control.ki": "integral gain K_I",
                   "control.kd": "derivative gain K_D", "control.rho": "integral leak rho",
                   "control.kappa": "reference scale kappa", "control.i_max": "integral bound I_max",
                   "n_bits": "semantic bits per token N", "seed": "seed of the weight realisation"}

#: Coordinates that are not grid axes.
COORDINATES = {
    "step": "iteration t of the recorded row", "window": "row of the attention window (0 = newest)",
    "feature": "feature index a (0-based)", "pe_bit": "bit of the positional code (most significant first)",
    "exponent": "index of the Lyapunov exponent (0 = largest)",
    "band_point": "index of the Poincare band value (time order)",
    "tail_step": "iteration t of the stored tail row",
    "census_slot": "attractor of the point's fresh census (by decreasing basin fraction)",
    "start": "fresh start of the census (counter-based index)", "quantile": "quantile level of the summary",
    "cycle_point": "point of the cycle (phase arbitrary)", "attractor": "attractor id, matched along the axis",
    "u": "basin map: coordinate along the plane's first direction", "v": "basin map: coordinate along the "
    "plane's second direction", "plane_axis": "direction of the basin map's plane (0: u, 1: v)",
    "destination": "attractor id at this value of the chain",
}

#: Per-point datasets of sweep and trajectory files (the observable-dependent ones are built by :func:`attrs`).
VARIABLES = {
    "final_att": "final attention window A (row 0 = newest)", "final_pe": "final positional-code window",
    "final_depth": "valid rows of the final attention window",
    "pre_att": "attention window after the continuation pre-run", "pre_pe": "positional-code window after the "
    "continuation pre-run", "pre_depth": "valid rows of the window after the continuation pre-run",
    "lyapunov": "Lyapunov exponent, natural log per step",
    "lyapunov_stderr": "standard error of the Lyapunov exponent (block means), per step",
    "evidence": "classification evidence (what each entry is: evidence_key)",
    "max_integral": "largest |I_t| of the PID integral (NaN without control)",
    "diverged_at": "step at which the PID loop passed the divergence bound (-1: never)",
    "finite_error": "replica mean of |m^{o,se}_N - m^{o,se}_MF| over the aligned steps",
    "finite_error_stderr": "standard error of finite_error over replicas",
    "pair_plotted": "plotted feature of each Poincare band pair", "pair_filter": "filter feature of each "
    "Poincare band pair (its value is near 0 on the band)",
    "band_count": "number of steps on the Poincare band", "band_distinct": "distinct values on the Poincare band",
    "period": "period of a periodic point, in steps (-1: none)",
    "census_count": "attractors found by the fresh census (more than census_slot: not all stored)",
    "census_unsettled": "fraction of the fresh starts settled on no attractor (unsettled)",
    "census_assignment": "attractor of each fresh start (census_slot index, -1: unsettled)",
    "census_period": "period of the attractor in steps (0: aperiodic, -1: empty slot)",
    "census_label": "class of the attractor (codes: label_names; -1 empty slot)",
    "census_depth": "valid rows of the representative's final window",
    "census_fraction": "basin fraction over the fresh starts", "census_fraction_stderr": "binomial standard "
    "error of the basin fraction", "census_scale": "extent of the attractor (largest per-feature range)",
    "census_summary": "quantiles of the newest attention row on the attractor",
    "census_points": "points of the cycle (newest attention row; NaN beyond the period)",
    "census_att": "final attention window of a start on the attractor",
    "census_pe": "final positional-code window of a start on the attractor",
    "census_lyapunov": "Lyapunov exponents of a start on the attractor, per step",
    "census_transient_share": "fraction of the fresh starts on a chaotic transient at the end of their run",
    "census_escape_rate": "escape rate of the chaotic transient, per step (NaN: none, or none left it)",
    "census_escape_rate_stderr": "standard error of the escape rate, per step",
    "fraction": "basin fraction over the fresh starts (NaN: absent)", "fraction_stderr": "binomial standard "
    "error of the basin fraction", "label": "class of the attractor (codes: label_names; -1 absent)",
    "scale": "extent of the attractor (largest per-feature range)",
    "summary": "quantiles of the newest attention row on the attractor",
    "points": "points of the cycle (newest attention row; NaN beyond the period)",
    "unsettled": "fraction of the fresh starts settled on no attractor (unsettled)",
    "id": "attractor id of the start (-1: unsettled)", "tipping": "fraction of the fresh starts on the attractor at "
    "the chain's previous value that are on the destination at this value (NaN: none there)",
    "tipping_unsettled": "fraction of the fresh starts on the attractor at the chain's previous value that are "
    "unsettled (on no attractor) at this value",
    "map_fraction": "fraction of the basin map's starts",
    "origin": "attention window the basin map's plane passes through",
    "direction": "direction of the basin map's plane in the attention window's space",
    "checksum": "crc32 of the point's stored bytes in each checked dataset (docs/storage.md 8)",
}

#: Names that older files (written before the 2026-12 rename) give to what is now named otherwise, old -> new
#: (docs/storage.md §7).
#: A start that settled on no attractor was "unresolved" there, the word of the classifier's label for an
#: attractor it cannot name; it is "unsettled" now. The fresh census's ``census_unresolved`` (sweep files and
#: their refinement rounds), the chained census's ``unresolved`` and ``tipping_unresolved`` (``attractors/<dir>``)
#: and the basin map's attribute ``unresolved`` (``basins``): every reader of :mod:`meanfield.sweeps.store` gives
#: them under their new names (:func:`current_name`, :func:`stored_name`, :func:`renamed`), and a sweep resumed
#: into such a file renames them in it first (:func:`meanfield.sweeps.store.sweep.upgrade_names`).
RENAMED = {"census_unresolved": "census_unsettled", "unresolved": "unsettled",
           "tipping_unresolved": "tipping_unsettled"}


def current_name(name: str) -> str:
    """The name a reader gives a stored dataset or attribute ``name`` (:data:`RENAMED`; others unchanged)."""
    return RENAMED.get(name, name)


def stored_name(group, name: str) -> str:
    """The name under which ``group`` (an h5py group, or anything with ``in``) holds what is now called ``name``:
    ``name`` itself, or its old name (:data:`RENAMED`) in a file written before the rename."""
    if name not in group:
        for old, new in RENAMED.items():
            if new == name and old in group:
                return old
    return name


def renamed(ds):
    """An ``xarray.Dataset`` read from a result file with its variables and attributes under their current names
    (:data:`RENAMED`): the same object when it holds no old name."""
    names = {old: new for old, new in RENAMED.items() if old in ds.variables and new not in ds.variables}
    if names:
        ds = ds.rename(names)
    for old, new in RENAMED.items():
        if old in ds.attrs and new not in ds.attrs:
            ds.attrs[new] = ds.attrs.pop(old)
    return ds


#: Flag variables: (long_name, values, meanings).
FLAGS = {"done": ("point computed and stored", [0, 1], ["pending", "done"]),
         "row_done": ("row of the basin map computed and stored", [0, 1], ["pending", "done"])}

#: String coordinates.
STRINGS = {"evidence_key": "name of the classification evidence entry",
           "pair": "Poincare band pair, plotted feature | filter feature (0-based)",
           "checked": "name of the dataset a checksum covers"}


def attrs(name: str, observable: str = "mo_se") -> dict:
    """The CF attributes of variable ``name`` (``observable``: the one a sweep's reductions use)."""
    if name in FLAGS:
        long_name, values, meanings = FLAGS[name]
        return {"long_name": long_name, "flag_values": values, "flag_meanings": " ".join(meanings)}
    if name in STRINGS:
        return {"long_name": STRINGS[name]}
    what = OBSERVABLE_NAMES[observable]
    derived = {"hist": f"orbit histogram of {what} (recorded steps per bin)",
               "distinct": f"distinct values of {what} at the quantisation levels",
               "band_values": f"{what} on the Poincare band, in time order",
               "ybin": f"{what}, centre of the histogram bin"}
    for obs, text in OBSERVABLE_NAMES.items():
        derived[obs] = text
        derived[f"tail_{obs}"] = f"{text}, last recorded steps"
    known = {**PARAMETER_NAMES, **COORDINATES, **VARIABLES, **derived}
    return {"long_name": known.get(name, name.replace("_", " ")), "units": "1"}


def described(name: str) -> bool:
    """Whether ``name`` has its own entry here (tests check that every variable a file holds has one)."""
    observables = set(OBSERVABLE_NAMES) | {f"tail_{o}" for o in OBSERVABLE_NAMES}
    return name in {**PARAMETER_NAMES, **COORDINATES, **VARIABLES, **FLAGS, **STRINGS} or name in observables or \
        name in ("hist", "distinct", "band_values", "ybin")


def label_flags(labels) -> dict:
    """CF flag attributes of the ``analysis/label`` codes: -1 = not computed, then the class names in order."""
    return {"long_name": "attractor class", "flag_values": np.arange(-1, len(labels), dtype=np.int8),
            "flag_meanings": " ".join(["not_computed", *labels])}
