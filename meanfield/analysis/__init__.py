"""Generic trajectory analysis: arrays in, numbers out.

Nothing here knows the model (the package imports only :mod:`meanfield.errors`), so every tool is validated
on textbook maps with known answers (tests/analysis/textbook.py). docs/classification.md describes the
classification rules; docs/model.md the reference's procedures that some tools reproduce. The names below are
the public tools (docs/api.md); their results' types and the building blocks behind them live in the modules
(:mod:`.classify`, :mod:`.spectra`, :mod:`.orbits`, ...).

Classification (docs/classification.md)
    :func:`classify`, :func:`classify_many`, :class:`Thresholds`, :data:`LABELS` (one label vocabulary for every
    tool and file)
Series
    :func:`poincare_section`, :func:`detect_period`, :func:`power_spectrum`, :func:`dominant_frequencies`,
    :func:`spectral_entropy`, :func:`autocorrelation`, :func:`rotation_number`
Regularity and chaos indicators
    :func:`weighted_birkhoff_average` (Das et al. 2017), :func:`chaos01_test` (Gottwald & Melbourne 2009),
    :func:`lyapunov_spectrum` (Benettin et al. 1980), :func:`escape_rate` (chaotic transients, docs/attractors.md §7)
Bifurcations of a map given as numba functions (docs/bifurcations.md)
    :func:`locate_bifurcations`, :func:`continue_curve`, :func:`normal_form_coefficient`
Attractors of an ensemble of starts (docs/attractors.md)
    :func:`fingerprint`, :func:`group_attractors`, :func:`match_attractors`
Basin geometry (docs/basins.md)
    :func:`basin_entropy` (Daza et al. 2016), :func:`uncertainty_exponent` (Grebogi et al. 1983),
    :func:`wada_merging` (Daza et al. 2018), :func:`tipping_probabilities` (Kaszás et al. 2019)
"""

from meanfield.analysis.basins import basin_entropy, tipping_probabilities, uncertainty_exponent, wada_merging
from meanfield.analysis.bifurcations import locate_bifurcations
from meanfield.analysis.chaos01 import chaos01_test
from meanfield.analysis.classify import classify, classify_many
from meanfield.analysis.correlation import autocorrelation
from meanfield.analysis.curves import continue_curve
from meanfield.analysis.evidence import Thresholds
from meanfield.analysis.fingerprint import fingerprint
from meanfield.analysis.grouping import group_attractors, match_attractors
from meanfield.analysis.labels import LABELS
from meanfield.analysis.lyapunov import lyapunov_spectrum
from meanfield.analysis.normal_forms import normal_form_coefficient
from meanfield.analysis.period import detect_period
from meanfield.analysis.regularity import weighted_birkhoff_average
from meanfield.analysis.rotation import rotation_number
from meanfield.analysis.sections import poincare_section
from meanfield.analysis.spectra import dominant_frequencies, power_spectrum, spectral_entropy
from meanfield.analysis.transients import escape_rate

__all__ = [
    "classify", "classify_many", "Thresholds", "LABELS",
    "poincare_section", "detect_period", "power_spectrum", "dominant_frequencies", "spectral_entropy",
    "autocorrelation", "rotation_number",
    "weighted_birkhoff_average", "chaos01_test", "lyapunov_spectrum", "escape_rate",
    "locate_bifurcations", "continue_curve", "normal_form_coefficient",
    "fingerprint", "group_attractors", "match_attractors",
    "basin_entropy", "uncertainty_exponent", "wada_merging", "tipping_probabilities",
]
