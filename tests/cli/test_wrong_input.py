"""Every subcommand with a corpus of wrong inputs: exit status 2, exactly one line on stderr, no traceback, every
quotation in it closed (helpers.balanced_quotes), and no file created or changed in the working directory
(inputs from conftest.py)."""
import pytest

from .helpers import balanced_quotes, cli, snapshot

#: (arguments, a word the one-line message must contain). Files: see conftest.py.
CORPUS = [
    # the command itself
    ([], "required"),
    (["nonsense"], "invalid choice"),
    (["--bogus"], "required"),
    (["info", "--bogus"], "unrecognized"),
    (["-q"], "required"),
    (["--log-file", "no_such_dir/log.txt", "info", "sweep.h5"], "log-file"),
    # simulate
    (["simulate", "--steps", "0"], "steps"),
    (["simulate", "--steps", "ten"], "steps"),
    (["simulate", "--steps", "100", "--transient", "100"], "transient"),
    (["simulate", "--transient", "-1"], "transient"),
    (["simulate", "--set", "beta_o=nan"], "beta_o"),
    (["simulate", "--set", "epsilon=2"], "epsilon"),
    (["simulate", "--set", "foo=1"], "foo"),
    (["simulate", "--set", "beta_att"], "beta_att"),
    (["simulate", "--set", "control.kp=abc"], "control.kp"),
    (["simulate", "--beta", "abc"], "beta"),
    (["simulate", "--beta", "inf"], "beta_o"),
    (["simulate", "--preset", "nope"], "preset"),
    (["simulate", "--preset", "random"], "random"),
    (["simulate", "--preset", "random", "--set", "seed=3"], "random"),
    (["simulate", "--lyapunov", "0"], "lyapunov"),
    (["simulate", "--lyapunov", "99"], "lyapunov"),
    (["simulate", "--record-every", "0"], "record_every"),
    (["simulate", "-o", "no_such_dir/out.h5"], "no_such_dir"),
    (["simulate", "-o", "traj.h5"], "exists"),
    (["simulate", "-o", "new.h5", "--plot", "figure.xyz"], "xyz"),
    (["simulate", "--steps", "100", "--transient", "50", "--lyapunov", "-o", "new.h5", "--plot", "fig.docx"], "docx"),
    # sweep
    (["sweep"], "required"),
    (["sweep", "missing.toml"], "missing.toml"),
    (["sweep", "no_such_run"], "paper_fig3_quick"),
    (["sweep", "bad_toml.toml"], "TOML"),
    (["sweep", "unknown_key.toml"], "steppz"),
    (["sweep", "text.h5"], "TOML"),
    (["sweep", "run.toml", "--set", "steps=0"], "steps"),
    (["sweep", "run.toml", "--set", "steps"], "key=value"),
    (["sweep", "run.toml", "--set", "=3"], "key=value"),
    (["sweep", "run.toml", "--set", "steppz=3"], "steppz"),
    (["sweep", "run.toml", "--set", "grid.beta_o.num=0"], "num"),
    (["sweep", "run.toml", "--set", "grid.beta_o=[]"], "grid.beta_o"),
    (["sweep", "run.toml", "--set", "grid.nope.num=3"], "nope"),
    (["sweep", "run.toml", "--set", "steps.num=3"], "steps"),
    (["sweep", "run.toml", "--set", "model.preset=nope"], "preset"),
    (["sweep", "run.toml", "--set", "model.preset=random"], "random"),
    (["sweep", "run.toml", "--set", "lyapunov=[1,"], "TOML"),
    (["sweep", "run.toml", "--workers", "0"], "workers"),
    (["sweep", "run.toml", "--workers", "two"], "workers"),
    (["sweep", "run.toml", "-o", "new.h5", "--resume"], "resume"),
    (["sweep", "run.toml", "--resume", "--force"], "not allowed with"),
    (["sweep", "run.toml", "--scheduler", "tcp://x:1", "--slurm"], "not allowed with"),
    (["sweep", "run.toml", "-o", "traj.h5"], "not a sweep"),
    (["sweep", "run.toml", "-o", "text.h5"], "HDF5"),
    (["sweep", "run.toml", "-o", "other_grid.h5"], "another run spec"),
    (["sweep", "run.toml", "-o", "new.h5", "--plot", "figure.xyz"], "xyz"),
    (["sweep", "run.toml", "-o", "new.h5", "--dry-run", "--set", "chunk=0"], "chunk"),
    # analyze
    (["analyze"], "required"),
    (["analyze", "missing.h5"], "missing.h5"),
    (["analyze", "text.h5"], "HDF5"),
    (["analyze", "traj.h5"], "not a sweep"),
    (["analyze", "sweep.h5", "--set", "nonsense=1"], "nonsense"),
    (["analyze", "sweep.h5", "--set", "min_length=2.5"], "min_length"),
    (["analyze", "sweep.h5", "--set", "z"], "key=value"),
    (["analyze", "map.h5", "--bifurcations"], "1-D"),
    # plot
    (["plot"], "required"),
    (["plot", "nope", "sweep.h5"], "invalid choice"),
    (["plot", "bifurcation", "missing.h5"], "missing.h5"),
    (["plot", "bifurcation", "text.h5"], "HDF5"),
    (["plot", "bifurcation", "traj.h5"], "simulate --plot"),
    (["plot", "density", "traj.h5"], "not a sweep"),
    (["plot", "phase", "sweep.h5"], "2-D"),
    (["plot", "bifurcation", "map.h5"], "1-D"),
    (["plot", "density", "sweep.h5", "--feature", "9"], "feature"),
    (["plot", "classes", "sweep.h5", "--feature", "-1"], "feature"),
    (["plot", "lyapunov", "sweep.h5", "-k", "0"], "k"),
    (["plot", "lyapunov", "no_exponents.h5"], "Lyapunov"),
    (["plot", "bifurcation", "sweep.h5", "-o", "figure.xyz"], "xyz"),
    (["plot", "bifurcation", "sweep.h5", "--feature", "x"], "feature"),
    # compare
    (["compare"], "required"),
    (["compare", "missing.h5"], "missing.h5"),
    (["compare", "text.h5"], "HDF5"),
    (["compare", "traj.h5"], "not a sweep"),
    (["compare", "no_exponents.h5"], "tail"),
    (["compare", "sweep.h5", "other_grid.h5", "-o", "out/cmp"], "grid"),
    (["compare", "sweep.h5", "--probe", "0"], "probe"),
    (["compare", "sweep.h5", "--seed", "-1"], "seed"),
    # info
    (["info"], "--devices"),
    (["info", "missing.h5"], "missing.h5"),
    (["info", "text.h5"], "HDF5"),
    (["info", "a.h5", "b.h5"], "unrecognized"),
]


@pytest.mark.parametrize("argv, word", CORPUS, ids=[" ".join(a) or "(nothing)" for a, _ in CORPUS])
def test_a_wrong_input_is_one_line_exit_2_and_writes_nothing(workdir, capsys, argv, word):
    before = snapshot(workdir)
    status = cli(argv)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert status == 2, err
    assert len(lines) == 1, err
    assert "Traceback" not in err and lines[0].startswith("meanfield")
    assert word.lower() in lines[0].lower(), lines[0]
    assert balanced_quotes(lines[0]), lines[0]
    assert snapshot(workdir) == before


@pytest.mark.parametrize("message, balanced", [
    ("run file 'x.toml' is not valid TOML", True),
    ("--set \"a\" isn't allowed: the file's key 'k'", True),
    ("'../src/results/fig3_quick.h5' holds no attractor census 'up'", True),
    ("../src/results/fig3_quick.h5' holds no attractor census 'up'", False),     # the opening quote lost
    ("output 'a.h5 exists", False),
    ('--set "steps=1 is not allowed', False),
])
def test_the_quote_rule(message, balanced):
    assert balanced_quotes(message) is balanced
