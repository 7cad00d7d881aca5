"""Parameter sweeps (docs/storage.md), in four sub-packages on floors, each importing only those below it:

- :mod:`.config`: what a run file says (:mod:`.config.runfile`, :mod:`.config.tables`, :mod:`.config.clusterspec`) and
  where a sweep computes (:mod:`.config.where`);
- :mod:`.store`: the result files, the only code that opens them (sweeps and trajectories, their schema,
  provenance, writer lock and atomic output);
- :mod:`.execute`: computing a sweep (the client loop :mod:`.execute.run`, planning, the workers' tasks and
  evidence, the checks made before the output is touched, the estimate of ``--dry-run``, local / scheduler /
  SLURM / GPU clusters and the watchdog);
- :mod:`.results`: reading a finished sweep (sweep-scale attractor labels, refinement of transitions).
"""
