"""The two-parameter bifurcation diagram (meanfield/plots/curves.py): criticality drawn as line style, codim-2
points marked and named, curves sharing a legend entry, the tori's rotation numbers as the background."""
import json

import numpy as np
import pytest
import xarray as xr

from meanfield.analysis import locate_bifurcations
from meanfield.analysis.curves import continue_curve
from meanfield.errors import ConfigError
from meanfield.plots.curves import curves_figure
from meanfield.plots.data import SWEEP_KIND
from meanfield.plots.sweep import rotation_map
from tests.analysis.test_normal_forms import cubic_flip_jacobian, cubic_flip_step


def test_supercritical_solid_subcritical_dashed_and_the_gpd_marked(tmp_path):
    # x ↦ −(1 + α)x + x² + b x³ flips at α = 0 with c = 1 + b: subcritical for b < −1, supercritical above, the
    # generalised period doubling at (0, −1) (tests/analysis/test_normal_forms.py derives it)
    flip, = locate_bifurcations(cubic_flip_step, cubic_flip_jacobian, np.array([0.0]), 1, 0, (-0.1, 0.1),
                                params=np.array([-0.1, 0.5]))
    curve = continue_curve(cubic_flip_step, cubic_flip_jacobian, flip, (0, 1), (-2.0, 0.5), params=[-0.1, 0.5])
    fig = curves_figure([("period doubling", curve, "tab:blue")])
    ax = fig.axes[0]
    drawn = [line for line in ax.get_lines() if len(line.get_xdata()) > 1]
    styles = {line.get_linestyle(): line for line in drawn}
    assert sorted(styles) == ["-", "--"]
    # x is b, the second parameter; a dashed piece ends on the first solid point (the pieces join)
    assert np.all(np.asarray(styles["--"].get_xdata())[:-1] <= -1 + 1e-6)
    assert np.all(np.asarray(styles["-"].get_xdata()) >= -1 - 1e-6)
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels[0] == "period doubling" and labels[1].startswith("GPD (-1.0000, ") and "subcritical" in labels
    fig.savefig(tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 10_000


def rotation_sweep():
    """A 2-D sweep Dataset as mf.sweep_results gives it, with tori at three points and none elsewhere."""
    rotation = np.full((3, 4), np.nan)
    rotation[0, 1], rotation[1, 2], rotation[2, 3] = 0.24, 0.25, 0.26
    return xr.Dataset({"rotation": (("beta_att", "beta_o"), rotation)},
                      coords={"beta_att": [1.0, 2.0, 3.0], "beta_o": [1.24, 1.25, 1.26, 1.27]},
                      attrs={"kind": SWEEP_KIND, "axes": json.dumps(["beta_att", "beta_o"])})


def test_the_rotation_background_colours_tori_and_leaves_the_rest_grey():
    flip, = locate_bifurcations(cubic_flip_step, cubic_flip_jacobian, np.array([0.0]), 1, 0, (-0.1, 0.1),
                                params=np.array([-0.1, 0.5]))
    curve = continue_curve(cubic_flip_step, cubic_flip_jacobian, flip, (0, 1), (-2.0, 0.5), params=[-0.1, 0.5])
    fig = curves_figure([("side", curve, "tab:blue"), (None, curve, "tab:blue")], None)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()].count("side") == 1   # one entry for two
    fig = rotation_map(rotation_sweep())
    ax, colour_bar = fig.axes
    mesh, = ax.collections
    shown = np.ma.masked_invalid(mesh.get_array()).reshape(4, 3)          # x = beta_att: the grid transposed
    assert shown.count() == 3 and shown[1, 0] == 0.24 and shown[3, 2] == 0.26
    assert ax.get_facecolor()[:3] == (0.88, 0.88, 0.88) and "rotation number" in colour_bar.get_ylabel()


def test_an_unknown_background_is_refused():
    with pytest.raises(ConfigError, match="^background = 'phase' is not allowed"):
        curves_figure([], rotation_sweep(), background="phase")
