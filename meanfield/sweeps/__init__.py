"""Parameter sweeps (docs/storage.md): run files (:mod:`.runfile`, :mod:`.tables`), planning (:mod:`.plan`),
the workers' tasks per system (:mod:`.tasks`, :mod:`.evidence`), clusters (:mod:`.cluster`), the checks made
before an output is touched (:mod:`.preflight`), the client loop (:mod:`.run`), the output's writer lock and
life (:mod:`.lock`, :mod:`.output`), the result files (:mod:`.store`, the only module that opens them) and
sweep-scale attractor labels (:mod:`.labels`)."""
