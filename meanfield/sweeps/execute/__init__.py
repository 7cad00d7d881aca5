"""Computing a sweep: the client loop (:mod:`.run`), chunks and continuation waves (:mod:`.plan`), one task per
system (:mod:`.tasks`) and the evidence measured in the workers (:mod:`.evidence`), the checks made before the
output is touched (:mod:`.preflight`), the estimate of ``--dry-run`` (:mod:`.estimate`), the clusters
(:mod:`.cluster`, SLURM in :mod:`.slurm`) and the watchdog of those meanfield does not control (:mod:`.watchdog`).
Acts on the :class:`~meanfield.sweeps.config.where.Where` the spec decided; writes through
:mod:`meanfield.sweeps.store`."""
