"""What a finished sweep says: attractor labels of every point (:mod:`.labels`), transitions bracketed by
bisection (:mod:`.refine`) and located by multipliers (:mod:`.bifurcations`). Reads and writes files only
through :mod:`meanfield.sweeps.store`."""
