"""Figures (matplotlib only; result files are read through :mod:`meanfield.sweeps.store`): the shared look
(:mod:`.style`), single trajectories (:mod:`.trajectory`), bifurcation diagrams (:mod:`.bifurcation`), classified
sweeps (:mod:`.sweep`), the PID comparison (:mod:`.pid`) and the finite-N convergence (:mod:`.finite`)."""
