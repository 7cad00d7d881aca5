"""Generic trajectory analysis: arrays in, numbers out.

Nothing here knows the model (the package imports only :mod:`meanfield.errors`), so every tool is validated
on textbook maps with known answers (tests/analysis/textbook.py). docs/classification.md describes the
classification rules; docs/model.md the reference's procedures that some tools reproduce.

Sections and orbit statistics
    :func:`poincare_band`, :func:`poincare_section`, :func:`quantise`, :func:`dequantise`,
    :func:`distinct_count`, :func:`find_cycle`, :func:`detect_period`
Spectra, correlations and tori
    :func:`power_spectrum_raw`, :func:`power_spectrum`, :func:`dominant_frequencies`,
    :func:`spectral_entropy`, :func:`autocorrelation_raw`, :func:`autocorrelation`, :func:`line_frequencies`,
    :func:`torus_generators`, :func:`section_curve_spread`, :func:`rotation_number`, :class:`Rotation`
Regularity and chaos indicators
    :func:`weighted_birkhoff_average`, :func:`birkhoff_drift` (Das et al. 2017), :func:`chaos01_test`
    (Gottwald & Melbourne 2009), :func:`band_count`, :func:`lyapunov_spectrum` (Benettin et al. 1980)
Periodic orbits and bifurcations
    :func:`periodic_orbit`, :func:`locate_bifurcations`, :class:`PeriodicOrbit`, :class:`Bifurcation`,
    :func:`continue_curve`, :class:`Curve`, :class:`CodimTwo`, :func:`normal_form_coefficient`
    (docs/bifurcations.md)
Attractors of an ensemble of starts (docs/attractors.md)
    :func:`fingerprint`, :class:`Fingerprints`, :func:`quantile_summary`, :func:`measure_distance`,
    :func:`group_attractors`, :class:`Grouping`, :func:`assign_to_attractors`, :func:`match_attractors`
Chaotic transients (docs/attractors.md §7)
    :func:`escape_rate`, :class:`EscapeRate`
Basin geometry (docs/basins.md)
    :func:`basin_entropy` (Daza et al. 2016), :func:`uncertainty_exponent` (Grebogi et al. 1983),
    :func:`wada_merging` (Daza et al. 2018), :func:`tipping_probabilities` (Kaszás et al. 2019),
    :func:`map_uncertainty_exponent` (α of a stored basin map)
Systems (a user's own map: what the census and the orbit tools take, docs/architecture.md)
    :class:`Map`, :class:`SystemRun`
Classification
    :func:`classify`, :func:`classify_many`, :func:`decide`, :func:`measure`, :class:`Classification`,
    :class:`Thresholds`, :data:`EVIDENCE`
Label vocabulary (one table for every tool and file)
    :data:`LABELS`, :data:`MISSING`, :func:`label_code`, :func:`label_names`
"""

from meanfield.analysis.basins import (
    basin_entropy,
    map_uncertainty_exponent,
    tipping_probabilities,
    uncertainty_exponent,
    wada_merging,
)
from meanfield.analysis.bifurcations import Bifurcation, locate_bifurcations
from meanfield.analysis.chaos01 import band_count, chaos01_test
from meanfield.analysis.classify import Classification, classify, classify_many, decide
from meanfield.analysis.correlation import autocorrelation, autocorrelation_raw
from meanfield.analysis.curves import CodimTwo, Curve, continue_curve
from meanfield.analysis.evidence import EVIDENCE, Thresholds, measure
from meanfield.analysis.fingerprint import Fingerprints, fingerprint, measure_distance, quantile_summary
from meanfield.analysis.grouping import Grouping, assign_to_attractors, group_attractors, match_attractors
from meanfield.analysis.labels import LABELS, MISSING, label_code, label_names
from meanfield.analysis.lyapunov import LyapunovResult, lyapunov_spectrum
from meanfield.analysis.maps import Map, SystemRun
from meanfield.analysis.normal_forms import normal_form_coefficient
from meanfield.analysis.orbits import PeriodicOrbit, periodic_orbit
from meanfield.analysis.period import Cycle, detect_period, find_cycle
from meanfield.analysis.regularity import birkhoff_drift, weighted_birkhoff_average
from meanfield.analysis.rotation import Rotation, rotation_number
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
from meanfield.analysis.tori import line_frequencies, section_curve_spread, torus_generators
from meanfield.analysis.transients import EscapeRate, escape_rate

__all__ = [
    "basin_entropy",
    "map_uncertainty_exponent",
    "tipping_probabilities",
    "uncertainty_exponent",
    "wada_merging",
    "Bifurcation",
    "CodimTwo",
    "Curve",
    "continue_curve",
    "normal_form_coefficient",
    "PeriodicOrbit",
    "locate_bifurcations",
    "periodic_orbit",
    "EVIDENCE",
    "Fingerprints",
    "Grouping",
    "LABELS",
    "Map",
    "SystemRun",
    "MISSING",
    "label_code",
    "label_names",
    "Classification",
    "Cycle",
    "LyapunovResult",
    "Rotation",
    "EscapeRate",
    "Thresholds",
    "autocorrelation",
    "autocorrelation_raw",
    "band_count",
    "birkhoff_drift",
    "chaos01_test",
    "classify",
    "classify_many",
    "decide",
    "dequantise",
    "detect_period",
    "distinct_count",
    "dominant_frequencies",
    "escape_rate",
    "find_cycle",
    "fingerprint",
    "assign_to_attractors",
    "group_attractors",
    "line_frequencies",
    "lyapunov_spectrum",
    "match_attractors",
    "measure",
    "measure_distance",
    "poincare_band",
    "poincare_section",
    "power_spectrum",
    "power_spectrum_raw",
    "quantile_summary",
    "quantise",
    "rotation_number",
    "section_curve_spread",
    "spectral_entropy",
    "torus_generators",
    "weighted_birkhoff_average",
]
