"""What a sweep is asked to do, validated before anything runs: the run file (:mod:`.runfile`), its tables
(:mod:`.tables`), the ``[cluster]`` table (:mod:`.clusterspec`) and where the sweep computes (:mod:`.where`).
Imports nothing else of :mod:`meanfield.sweeps`."""
