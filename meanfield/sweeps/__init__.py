"""Parameter sweeps (docs/storage.md): run files (:mod:`.runfile`, :mod:`.tables`), planning (:mod:`.plan`),
the workers' tasks per system (:mod:`.tasks`, :mod:`.evidence`), clusters (:mod:`.cluster`), the client loop
(:mod:`.run`), the result files (:mod:`.store`, the only module that opens them) and sweep-scale attractor
labels (:mod:`.labels`)."""
