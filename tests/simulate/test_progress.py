"""simulate_batch with a progress bar runs the batch in pieces: the results are bitwise those of one call."""
import numpy as np

import meanfield as mf


def test_a_batch_in_pieces_equals_one_call(capsys):
    model = mf.presets.paper()
    betas = {"beta_o": np.linspace(0.5, 2.5, 12)}
    kwargs = dict(parameters=betas, lyapunov=3, record=("mo_se", "att"))
    whole = mf.simulate_batch(model, 600, 200, progress=False, **kwargs)
    assert capsys.readouterr().err == ""
    pieces = mf.simulate_batch(model, 600, 200, progress=True, **kwargs)
    assert "12/12" in capsys.readouterr().err
    for name in ("mo_se", "att"):
        np.testing.assert_array_equal(pieces.records[name], whole.records[name])
    for name in ("lyapunov", "lyapunov_stderr", "final_att", "final_pe", "final_depth", "max_integral",
                 "diverged_at"):
        np.testing.assert_array_equal(getattr(pieces, name), getattr(whole, name), err_msg=name)
