"""The two-parameter bifurcation diagram (meanfield/plots/curves.py): criticality drawn as line style, codim-2
points marked and named."""
import numpy as np

from meanfield.analysis import locate_bifurcations
from meanfield.analysis.curves import continue_curve
from meanfield.plots.curves import curves_figure
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
