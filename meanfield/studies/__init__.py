"""Questions asked of runs, answered in numbers and tables (no figures, no file format): PID-controlled
variants (:mod:`.pid`, :mod:`.comparison`), finite-N convergence (:mod:`.convergence`) and what float32 costs
(:mod:`.precision`). Result files are read through :mod:`meanfield.sweeps.store`."""
