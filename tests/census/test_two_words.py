"""One word per meaning: ``unresolved`` is the classifier's label of an attractor it cannot name; a start that
settled on no attractor is unsettled (``Census.unsettled_fraction``, assignment −1). A census whose attractors are
all labelled ``unresolved`` once printed "0.0% unresolved" above them; its summary now says which is which. The
package-wide check of the word is tests/test_layout.py (``test_unresolved_means_the_label_only``)."""
import numpy as np
import xarray as xr

from meanfield.census.attractor import Attractor
from meanfield.census.continuation import AttractorContinuation
from meanfield.census.find import Census


def _undecided(fraction: float) -> Attractor:
    """An attractor the classifier could not name (label ``unresolved``)."""
    return Attractor(label="unresolved", period=0, fraction=fraction, fraction_stderr=0.0, lyapunov=None,
                     state=None, summary=np.zeros((2, 1)), points=np.zeros((4, 1)), scale=1.0)


def test_the_summary_of_unresolved_attractors_says_unsettled_for_the_starts():
    census = Census(attractors=[_undecided(0.5), _undecided(0.25), _undecided(0.125)],
                    assignment=np.array([0, 0, 0, 0, 1, 1, 2, -1]), fingerprints=None)
    assert census.unsettled_fraction == 0.125
    header, *rows = repr(census).splitlines()
    assert header == "Census of 8 starts: 3 attractors, 12.5% unsettled"
    assert "unresolved" not in header and all(row.startswith(f"  #{i} unresolved: ") for i, row in enumerate(rows))
    assert len(rows) == 3


def test_a_census_with_every_start_settled_says_zero_unsettled_whatever_its_labels():
    census = Census(attractors=[_undecided(1.0)], assignment=np.zeros(4, dtype=np.int64), fingerprints=None)
    assert repr(census).splitlines()[0] == "Census of 4 starts: 1 attractors, 0.0% unsettled"


def test_the_continuation_names_its_unsettled_share_so():
    censuses = [Census(attractors=[_undecided(0.75)], assignment=np.array([0, 0, 0, -1]), fingerprints=None),
                Census(attractors=[_undecided(0.5)], assignment=np.array([0, -1, 0, -1]), fingerprints=None)]
    chain = AttractorContinuation(parameter="mu", values=np.array([0.0, 1.0]), censuses=censuses,
                                  ids=[np.array([0]), np.array([0])])
    ds = chain.to_dataset()
    assert isinstance(ds, xr.Dataset) and not [name for name in ds.variables if "unresolved" in name]
    np.testing.assert_array_equal(ds["unsettled"].values, [0.25, 0.5])
    # of the three starts on id 0 at mu = 0, one is unsettled at mu = 1 (start 1; start 3 was unsettled already)
    np.testing.assert_allclose(ds["tipping_unsettled"].values[1, 0], 1 / 3)
