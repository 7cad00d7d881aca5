"""Figures (matplotlib only). They draw Datasets and decide nothing: a sweep comes in as an ``xarray.Dataset``
(:mod:`.data`; :func:`meanfield.sweep_results` carries its labels and transitions, or a path opened with
:func:`meanfield.open_run`). The shared look (:mod:`.style`), single trajectories (:mod:`.trajectory`), bifurcation
diagrams (:mod:`.bifurcation`), classified sweeps (:mod:`.sweep`), attractor censuses (:mod:`.attractors`), the
PID comparison (:mod:`.pid`) and the finite-N convergence (:mod:`.finite`)."""
