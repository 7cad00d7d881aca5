"""Compute backends: allocation-free step functions (:mod:`.step`) compiled for the CPU (:mod:`.cpu`) and CUDA."""
