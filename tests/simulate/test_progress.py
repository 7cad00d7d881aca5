"""simulate_batch with a progress bar runs the batch in pieces (the results are bitwise those of one call) and
shows the step the kernel has reached; by default the bar appears only for a batch that runs long."""
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
    whole = mf.simulate_batch(model, 600, 200, **kwargs, compute=mf.Compute(progress=False))
    assert capsys.readouterr().err == ""
    pieces = mf.simulate_batch(model, 600, 200, **kwargs, compute=mf.Compute(progress=True))
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


def test_the_kernel_reports_the_step_it_has_reached():
    """Every tile writes its step every PROGRESS_STRIDE steps into the batch's progress array, so that a display
    can show a long batch of one point advancing: after 5 000 steps the last report is step 4 096."""
    from meanfield.kernels.cpu import run_batch
    from meanfield.model.layout import PROGRESS_STRIDE, Batch, batch_parameters, control_start, map_tables
    model = mf.presets.paper()
    params = batch_parameters(model, None)
    att0 = np.asarray(model.checkpoint.att, dtype=np.float64)[None]
    reached = np.zeros(1, np.int64)
    batch = Batch(*map_tables(model), params, np.asarray(model.checkpoint.pe, dtype=np.float64)[None], att0,
                  np.array([att0.shape[1]]), control_start(params, att0), 5_000, 4_000, 1, np.array([0]), 0, 1, 1,
                  reached)
    run_batch(batch)
    assert PROGRESS_STRIDE == 1024 and reached[0] == 4 * 1024


def test_a_step_watch_writes_the_step_reached_and_a_due_bar_while_compiling(capsys):
    from meanfield.progress import StepWatch, progress_bar
    reached = np.zeros(1, np.int64)
    bar = progress_bar(1, "simulate_batch")
    watch = StepWatch(bar, reached, 1_000_000)
    watch.tick()                                           # the kernel has not reported yet: still compiling
    compiling = bar.postfix
    reached[0] = 123_904
    watch.tick()
    running = bar.postfix
    bar.close()
    assert compiling.startswith("compiling") and running == "step 123,904 of 1,000,000"
    assert "step 123,904 of 1,000,000" in capsys.readouterr().err


def test_by_default_the_bar_waits_for_its_delay(capsys, monkeypatch):
    """No clock in the test: with the delay out of reach a default batch draws nothing, with no delay it draws."""
    import meanfield.progress as progress
    model = mf.presets.paper()
    monkeypatch.setattr(progress, "PROGRESS_DELAY", 1e9)
    mf.simulate(model, 2_000, 1_000)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(progress, "PROGRESS_DELAY", 0.0)
    mf.simulate(model, 2_000, 1_000)
    assert "simulate_batch: 100%" in capsys.readouterr().err
    mf.simulate(model, 2_000, 1_000, compute=mf.Compute(progress=False))
    assert capsys.readouterr().err == ""


def test_the_continuations_follow_the_same_rule(capsys, monkeypatch):
    """mf.bifurcations and mf.bifurcation_curve, like a batch, draw their bar by default once the delay has
    passed, and only then (no clock in the test: the delay out of reach, then none)."""
    import meanfield.progress as progress
    model = mf.presets.paper()
    monkeypatch.setattr(progress, "PROGRESS_DELAY", 1e9)
    point, = mf.bifurcations(model, "beta_o", (1.24, 1.245))
    mf.bifurcation_curve(model.replace(beta_o=point.value), point, "beta_att", (2.2, 2.25))
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(progress, "PROGRESS_DELAY", 0.0)
    mf.bifurcations(model, "beta_o", (1.24, 1.245))
    mf.bifurcation_curve(model.replace(beta_o=point.value), point, "beta_att", (2.2, 2.25))
    err = capsys.readouterr().err
    assert "beta_o" in err and "beta_att" in err
