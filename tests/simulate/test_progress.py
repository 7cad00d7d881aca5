"""simulate_batch with a progress bar runs the batch in pieces: the results are bitwise those of one call."""
import numba
import numpy as np

import meanfield as mf
from meanfield.simulation import PROGRESS_PIECES, progress_pieces


def test_a_batch_in_pieces_equals_one_call(capsys):
    model = mf.presets.paper()
    n = 3 * 64 * numba.get_num_threads()                 # three pieces of a full tile per thread
    assert progress_pieces(n) == 3
    betas = {"beta_o": np.linspace(0.5, 2.5, n)}
    kwargs = dict(parameters=betas, lyapunov=3, record=("mo_se", "att"))
    whole = mf.simulate_batch(model, 600, 200, progress=False, **kwargs)
    assert capsys.readouterr().err == ""
    pieces = mf.simulate_batch(model, 600, 200, progress=True, **kwargs)
    assert f"{n}/{n}" in capsys.readouterr().err
    for name in ("mo_se", "att"):
        np.testing.assert_array_equal(pieces.records[name], whole.records[name])
    for name in ("lyapunov", "lyapunov_stderr", "final_att", "final_pe", "final_depth", "max_integral",
                 "diverged_at"):
        np.testing.assert_array_equal(getattr(pieces, name), getattr(whole, name), err_msg=name)


def test_pieces_never_split_a_tile():
    """A piece holds a full tile (64 points) per thread, so a small batch runs in one piece, a big one in at most
    PROGRESS_PIECES."""
    per_piece = 64 * numba.get_num_threads()
    assert progress_pieces(32) == 1
    assert progress_pieces(2 * per_piece - 1) == 1
    assert progress_pieces(100 * per_piece) == PROGRESS_PIECES
