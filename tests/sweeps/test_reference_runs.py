"""Every knob of the reference preset (docs/model.md §1.2) and every start (§2.2) from a run file and from the
command line: each parses, runs a few steps and equals the same model built in Python; a seed axis is an ensemble
over weight realisations; bad combinations are one-line errors naming the key, before anything runs."""
import pathlib

import h5py
import numpy as np
import pytest

import meanfield as mf
from meanfield.cli import main
from meanfield.presets import reference
from meanfield.sweeps.execute.tasks import compute_chunk

STEPS, TRANSIENT, BETAS = 12, 6, (1.2, 1.6)
PAPER_CHECKPOINT = str(pathlib.Path(__file__).resolve().parents[1] / "data" / "checkpoint_beta3.0.npz")

RUN = """
name = "knob"
steps = {steps}
transient = {transient}

[model]
{model}

[grid]
{grid}

[record]
observables = ["mo_se", "att"]
tail = 6

[reductions]
bins = 10

[start]
{start}
"""

TOKEN = 'kind = "token"'
# (run-file lines of [model] after preset = "reference", the same knobs in Python, the start)
KNOBS = [
    ("seed = 7", dict(seed=7), TOKEN),
    ("n_features = 2", dict(n_features=2), TOKEN),
    ("pe_bits = 5", dict(pe_bits=5), TOKEN),                       # context defaults to 2^5 = 32
    ("pe_bits = 5\ncontext = 20", dict(pe_bits=5, context=20), TOKEN),
    ("semantic_bits = 100", dict(semantic_bits=100), TOKEN),
    ("segments = 4", dict(segments=4), TOKEN),
    ('correlations = "weights"', dict(correlations="weights"), TOKEN),
    ('correlations = "gaussian"\ngaussian_scale = 0.2', dict(correlations="gaussian", gaussian_scale=0.2), TOKEN),
    ('correlations = "uniform_means"', dict(correlations="uniform_means"), TOKEN),
    ('correlations = "manual_orders"\nsemantic_bits = 0', dict(correlations="manual_orders", semantic_bits=0),
     'kind = "correlation"\nindex = 1'),
    ("pe_mode = 1", dict(pe_mode=1), TOKEN),
    ("reorder_weights = true", dict(reorder_weights=True), TOKEN),
    ("epsilon = 0.1", dict(epsilon=0.1), TOKEN),
    ("beta_att = 1.5", dict(beta_att=1.5), TOKEN),
    ("scaling_att = 50.0", dict(scaling_att=50.0), TOKEN),
    ("scaling_o = 2.0", dict(scaling_o=2.0), TOKEN),
]


def run_text(model, start=TOKEN, grid=f"beta_o = {list(BETAS)}"):
    return RUN.format(steps=STEPS, transient=TRANSIENT, model=model, grid=grid, start=start)


def expected(model, start, betas=BETAS):
    """The Python route: simulate_batch of ``model`` from ``start`` at ``betas``."""
    return mf.simulate_batch(model, STEPS, TRANSIENT, parameters={"beta_o": np.array(betas)}, start=start,
                             record=("mo_se", "att"))


def python_start(model, start_table):
    if "correlation" in start_table:
        return mf.State.from_correlation(model, 1)
    return mf.State.from_pattern(model, 0, "o", reset_pe=True)


@pytest.mark.parametrize("lines, knobs, start", KNOBS, ids=[k[0].split()[0] for k in KNOBS])
def test_each_reference_knob_from_a_run_file_equals_python(lines, knobs, start):
    run = mf.load_run(run_text(f'preset = "reference"\n{lines}', start))
    model = reference(**knobs)
    assert run.model == model and model != reference()                    # the knob reached the model
    got = compute_chunk(run, np.arange(len(BETAS)), np.full(len(BETAS), -1))
    want = expected(model, python_start(model, start))
    np.testing.assert_array_equal(got["tail_att"], want.records["att"])
    np.testing.assert_array_equal(got["tail_mo_se"], want.records["mo_se"])
    np.testing.assert_array_equal(got["final_att"], want.final_att)


def test_random_preset_from_a_run_file_equals_python():
    run = mf.load_run(run_text('preset = "random"\nseed = 3\nn_features = 5'))
    model = mf.presets.random(seed=3, n_features=5)
    assert run.model == model
    got = compute_chunk(run, np.arange(2), np.full(2, -1))
    np.testing.assert_array_equal(got["tail_att"], expected(model, python_start(model, TOKEN)).records["att"])


def test_checkpoint_file_start_from_a_run_file(tmp_path):
    # the authors' P = 5 sweeps start from their own checkpoints: here one written from a P = 5, L = 32 run
    model = reference(pe_bits=5, seed=4)
    final = mf.simulate(model, 40, start=python_start(model, TOKEN)).final_state
    np.savez(tmp_path / "p5.npz", att_window=final.att, pe_window=final.pe)
    run = mf.load_run(run_text('preset = "reference"\npe_bits = 5\nseed = 4',
                               f'kind = "checkpoint"\nfile = "{tmp_path / "p5.npz"}"'))
    got = compute_chunk(run, np.arange(2), np.full(2, -1))
    np.testing.assert_array_equal(got["tail_att"], expected(model, final).records["att"])


def test_seed_axis_is_an_ensemble_of_weight_realisations():
    run = mf.load_run(run_text('preset = "reference"\npe_bits = 3', grid="seed = [5, 1, 9]\nbeta_o = [1.3, 2.0]"))
    assert run.shape == (3, 2) and run.parameters([0, 5]) == {"beta_o": pytest.approx([1.3, 2.0])}
    got = compute_chunk(run, np.arange(6)[::-1], np.full(6, -1))             # any order, several models per chunk
    order = np.argsort(got["index"])
    for i, seed in enumerate((5, 1, 9)):
        model = reference(seed=seed, pe_bits=3)
        want = expected(model, python_start(model, TOKEN), betas=(1.3, 2.0))
        np.testing.assert_array_equal(got["tail_att"][order][2 * i:2 * i + 2], want.records["att"])


def test_seed_sweep_through_dask_stores_integer_seeds(client, tmp_path):
    text = run_text('preset = "reference"', grid="seed = { start = 1, stop = 4, num = 4 }")
    path = mf.sweep(mf.load_run(text), tmp_path / "seeds.h5", place=mf.Place(client=client), progress=False)
    with h5py.File(path, "r") as f:
        assert f["seed"].dtype == np.int64 and list(f["seed"][...]) == [1, 2, 3, 4]
        tails = f["tail_att"][...]
    for i, seed in enumerate(range(1, 5)):
        model = reference(seed=seed)
        want = expected(model, python_start(model, TOKEN), betas=(model.beta_o,))
        np.testing.assert_array_equal(tails[i], want.records["att"][0])
    assert not np.array_equal(tails[0], tails[1])                         # different realisations


def test_finite_run_over_seeds_equals_one_run_per_seed():
    finite = "\n[finite]\nn_bits = [99, 198]\nreplicas = 2\naligned_steps = 4\n"
    grid = "seed = [2, 5]\nbeta_o = [1.3, 2.0]"
    text = RUN.format(steps=STEPS, transient=TRANSIENT, model='preset = "reference"', grid=grid, start="") + finite
    ensemble = compute_chunk(mf.load_run(text), np.arange(8), np.full(8, -1))
    for i, seed in enumerate((2, 5)):
        text = RUN.format(steps=STEPS, transient=TRANSIENT, model=f'preset = "reference"\nseed = {seed}',
                          grid="beta_o = [1.3, 2.0]", start="") + finite
        single = compute_chunk(mf.load_run(text), np.arange(4), np.full(4, -1))
        for name in ("finite_error", "tail_att", "hist"):
            np.testing.assert_array_equal(ensemble[name][4 * i:4 * i + 4], single[name], err_msg=name)


@pytest.mark.parametrize("model, grid, start, key", [
    ('preset = "reference"\nn_features = 4', None, TOKEN, "n_features"),
    ('preset = "random"\nn_features = 257', None, TOKEN, "n_features"),
    ('preset = "reference"\npe_bits = 2\ncontext = 5', None, TOKEN, "context"),
    ('preset = "reference"\nsegments = 100', None, TOKEN, "segments"),
    ('preset = "reference"\ncorrelations = "manual"', None, TOKEN, "correlations"),
    ('preset = "reference"\nseed = 1.5', None, TOKEN, "seed"),
    ('preset = "reference"\nsegmentz = 3', None, TOKEN, "segmentz"),
    ('preset = "paper"\nseed = 3', None, TOKEN, "seed"),
    ('preset = "paper"', "seed = [1, 2]", TOKEN, "grid.seed"),
    ('preset = "reference"', "seed = [1, 2.5]", TOKEN, r"grid.seed\[1\]"),
    ('preset = "reference"', "seed = [1, 1]", TOKEN, "grid.seed"),
    ('preset = "reference"', None, 'kind = "checkpoint"', "start.kind"),
    ('preset = "reference"', None, 'kind = "checkpoint"\nfile = "/nonexistent.npz"', "start.file"),
    ('preset = "reference"\npe_bits = 5', None, 'kind = "correlation"\nindex = 3', "start.index"),
])
def test_bad_combinations_name_the_key(model, grid, start, key):
    with pytest.raises(mf.ConfigError, match=key):
        mf.load_run(run_text(model, start, grid or f"beta_o = {list(BETAS)}"))


def test_continuation_along_seed_is_refused():
    text = run_text('preset = "reference"', grid="seed = [1, 2]") + '\n[continuation]\naxis = "seed"\n'
    with pytest.raises(mf.ConfigError, match="continuation.axis"):
        mf.load_run(text)


def test_checkpoint_of_the_wrong_shape_is_refused():
    with pytest.raises(mf.ConfigError, match="start.file"):                  # L = 4, P = 2 for an L = 32, P = 5 model
        mf.load_run(run_text('preset = "reference"\npe_bits = 5', f'kind = "checkpoint"\nfile = "{PAPER_CHECKPOINT}"'))


def read_att(path):
    with h5py.File(path, "r") as f:
        return f["att"][...]


def test_cli_reference_knobs_equal_python(tmp_path):
    out = tmp_path / "p5.h5"
    assert main(["simulate", "--preset", "reference", "--set", "seed=7", "--set", "pe_bits=5", "--set",
                 "correlations=weights", "--set", "reorder_weights=true", "--start", "token", "--beta", "1.4",
                 "--steps", "30", "-o", str(out)]) == 0
    model = reference(seed=7, pe_bits=5, correlations="weights", reorder_weights=True, beta_o=1.4)
    traj = mf.simulate(model, 30, start=python_start(model, TOKEN))
    np.testing.assert_array_equal(read_att(out), traj.att)


def test_cli_correlation_and_checkpoint_starts(tmp_path):
    out = tmp_path / "manual.h5"
    assert main(["simulate", "--preset", "reference", "--set", "correlations=manual_orders", "--set", "pe_bits=5",
                 "--start", "correlation", "--index", "2", "--beta", "10", "--steps", "20", "-o", str(out)]) == 0
    model = reference(correlations="manual_orders", pe_bits=5, beta_o=10.0)
    np.testing.assert_array_equal(read_att(out), mf.simulate(model, 20, start=mf.State.from_correlation(model, 2)).att)
    out = tmp_path / "chk.h5"
    assert main(["simulate", "--preset", "reference", "--checkpoint", PAPER_CHECKPOINT, "--beta", "1.266",
                 "--steps", "20", "-o", str(out)]) == 0
    np.testing.assert_array_equal(read_att(out), mf.simulate(mf.presets.paper(), 20).att)   # paper = reference + it


@pytest.mark.parametrize("args", [
    ["--preset", "reference", "--set", "n_features=4", "--start", "token"],
    ["--preset", "random", "--set", "n_features=257", "--start", "token"],
    ["--preset", "reference", "--set", "context=8", "--start", "token"],
    ["--preset", "reference", "--set", "segments=100", "--start", "token"],
    ["--preset", "reference", "--set", "seed=1.5", "--start", "token"],
    ["--preset", "reference", "--set", "pe_bits=5", "--checkpoint", PAPER_CHECKPOINT],
    ["--preset", "reference"],
    ["--preset", "paper", "--set", "seed=2"],
])
def test_cli_bad_combinations_exit_2_and_write_nothing(tmp_path, capsys, args):
    out = tmp_path / "never.h5"
    assert main(["simulate", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err
    assert not out.exists()
