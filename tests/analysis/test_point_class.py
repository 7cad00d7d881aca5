"""A point's class (meanfield.analysis.labels.PointClass) is a value of the label vocabulary: its label and, for a
periodic point, its period travel as fields, so nothing parses them back from the printed name."""
import pickle

import numpy as np
import pytest

from meanfield.analysis.labels import LABELS, PointClass, label_code, point_classes
from meanfield.errors import AnalysisError

pytestmark = pytest.mark.unit


def test_a_class_carries_its_label_and_period_and_prints_as_its_name():
    cycle = PointClass("periodic", 28)
    assert (cycle.label, cycle.period, str(cycle)) == ("periodic", 28, "periodic(28)")
    assert cycle != PointClass("periodic", 56)                     # a period doubling is a change of class
    assert PointClass("chaotic", 7).period == 0 and PointClass("chaotic") == "chaotic"
    assert pickle.loads(pickle.dumps(cycle)).period == 28            # workers and files get the same value


def test_classes_come_from_stored_codes_and_periods():
    codes = np.array([[label_code("periodic"), label_code("fixed_point")], [-1, label_code("chaotic")]])
    periods = np.array([[24, 1], [-1, -1]])
    classes = point_classes(codes, periods)
    assert classes.shape == (2, 2)
    assert [(c.label, c.period) for c in classes.ravel()] == [("periodic", 24), ("fixed_point", 0),
                                                                ("missing", 0), ("chaotic", 0)]


def test_a_name_outside_the_vocabulary_is_refused():
    with pytest.raises(AnalysisError, match="label = 'periodic\\(24\\)' is not allowed"):
        PointClass("periodic(24)")
    assert all(PointClass(name).label == name for name in LABELS)
