"""Where the mean field holds: the finite-N network against the aligned mean field (docs/model.md §6.3), over
β_o and N_se. The figure is :func:`meanfield.plots.finite.finite_convergence_figure`."""
from __future__ import annotations

import numpy as np

from ..finite import Replicas, simulate_finite
from ..model.spec import ModelSpec
from ..progress import progress_bar

DEFAULT_BETAS = (0.5, 1.0, 1.26405, 1.5, 2.0, 2.5)
#: N_se = 990 ... 9.9e9 (multiples of the paper's N_se = 99; the binomial sampler makes large N cheap).
DEFAULT_SIZES = tuple(99 * 10 ** k for k in range(1, 9))


def convergence_study(model: ModelSpec, betas=DEFAULT_BETAS, sizes=DEFAULT_SIZES, replicas: int = 200,
                      steps: int = 45, seed: int = 0, sampler: str = "binomial", progress: bool = False) -> dict:
    """:func:`~meanfield.finite.simulate_finite` at every β_o in ``betas`` and N_se in ``sizes`` (``progress``:
    a bar on stderr).

    Returns {β_o: [FiniteTrajectory for each N_se, in the order of ``sizes``]}.
    """
    runs = {}
    with progress_bar(len(betas) * len(sizes), "convergence", enabled=progress, unit="run") as bar:
        for beta in betas:
            runs[beta] = []
            for n_bits in sizes:
                runs[beta].append(simulate_finite(model.replace(beta_o=beta), n_bits, steps,
                                                  Replicas(replicas, sampler=sampler, seed=seed)))
                bar.update(1)
    return runs


def convergence_table(runs: dict, observable: str = "mo_se", window: int = 20) -> dict:
    """{β_o: (N_se (k,), replica-mean aligned error (k,), its standard error (k,))} over the first ``window``
    aligned rows (:meth:`~meanfield.finite.FiniteTrajectory.aligned_error`)."""
    table = {}
    for beta, trajectories in runs.items():
        errors = [t.aligned_error(observable, window) for t in trajectories]
        table[beta] = (np.array([t.n_bits for t in trajectories]),
                       np.array([e.mean() for e in errors]),
                       np.array([e.std(ddof=1) / np.sqrt(e.size) if e.size > 1 else np.nan for e in errors]))
    return table
