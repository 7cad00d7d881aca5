"""Parameter sweeps (docs/storage.md): run files (:mod:`.runfile`, :mod:`.tables`, :mod:`.clusterspec`), planning
(:mod:`.plan`), the workers' tasks per system (:mod:`.tasks`, :mod:`.evidence`), clusters (:mod:`.cluster`,
SLURM in :mod:`.slurm`) and the watchdog of those meanfield does not control (:mod:`.watchdog`), the checks made
before an output is touched (:mod:`.preflight`), the client loop (:mod:`.run`), the output's writer lock and
life (:mod:`.lock`, :mod:`.output`), the result files (:mod:`.store`, the only module that opens them) and
sweep-scale attractor labels (:mod:`.labels`)."""
