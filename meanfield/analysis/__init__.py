"""Generic trajectory analysis: arrays in, numbers out (design.md; spec §4).

Nothing here knows the model, so every tool is validated on textbook maps (logistic, Hénon, circle map).

Sections and orbit statistics (spec §4.2)
    :func:`poincare_band`, :func:`poincare_section`, :func:`quantise`, :func:`dequantise`,
    :func:`distinct_count`, :func:`detect_period`
Spectra and correlations (spec §4.3)
    :func:`power_spectrum_raw`, :func:`power_spectrum`, :func:`dominant_frequencies`,
    :func:`spectral_entropy`, :func:`autocorrelation_raw`, :func:`autocorrelation`
Chaos indicators
    :func:`chaos01_test` (Gottwald & Melbourne), :func:`lyapunov_spectrum` (Benettin, spec §4.1)
Classification
    :func:`classify`, :func:`classify_many`, :class:`Classification`, :class:`Thresholds`
"""

from meanfield.analysis.chaos01 import chaos01_test
from meanfield.analysis.classify import EVIDENCE, LABELS, Classification, Thresholds, classify, classify_many, decide
from meanfield.analysis.correlation import autocorrelation, autocorrelation_raw
from meanfield.analysis.lyapunov import LyapunovResult, lyapunov_spectrum
from meanfield.analysis.period import detect_period
from meanfield.analysis.sections import (
    dequantise,
    distinct_count,
    poincare_band,
    poincare_section,
    quantise,
)
from meanfield.analysis.spectra import (
    dominant_frequencies,
    power_spectrum,
    power_spectrum_raw,
    spectral_entropy,
)

__all__ = [
    "EVIDENCE",
    "decide",
    "LABELS",
    "Classification",
    "LyapunovResult",
    "Thresholds",
    "autocorrelation",
    "autocorrelation_raw",
    "chaos01_test",
    "classify",
    "classify_many",
    "dequantise",
    "detect_period",
    "distinct_count",
    "dominant_frequencies",
    "lyapunov_spectrum",
    "poincare_band",
    "poincare_section",
    "power_spectrum",
    "power_spectrum_raw",
    "quantise",
    "spectral_entropy",
]
