"""The run files shipped with the package run by name (meanfield/sweeps/config/shipped.py): ``meanfield runs``
lists the repository's runs/ and runs/studies/ with each file's first comment line, ``meanfield sweep NAME`` runs
a run file and ``meanfield onset NAME`` a study file, a path works as before. An unknown name is a wrong input
(tests/cli/test_wrong_input.py); the installed package's copy is tested by tests/test_install.py."""
import pathlib

import meanfield as mf

from .helpers import cli, snapshot

RUNS = pathlib.Path(__file__).resolve().parents[2] / "runs"


def test_runs_lists_every_run_and_study_file_with_its_first_comment_line(capsys):
    assert cli(["runs"]) == 0
    runs, studies = capsys.readouterr().out.split("\nstudy files")
    for text, folder, least in ((runs, RUNS, 20), (studies.split("\n", 1)[1], RUNS / "studies", 3)):
        listed = {line.split()[0]: line.split(None, 1)[1] for line in text.splitlines() if line.strip()}
        files = sorted(folder.glob("*.toml"))
        assert sorted(listed) == [f.stem for f in files] and len(files) >= least
        for f in files:
            first = next(line for line in f.read_text(encoding="utf-8").splitlines() if line.startswith("#"))
            assert listed[f.stem] == first.lstrip("#").strip()


def test_a_study_file_is_found_by_name(workdir):
    from meanfield.studies.onset_scan import load_study
    assert load_study("onset_scaling_quick") == load_study(str(RUNS / "studies" / "onset_scaling_quick.toml"))
    # an unknown name is one line, exit 2, nothing written
    before = snapshot(workdir)
    assert cli(["onset", "onset_nosuch", "-o", "x.h5"]) == 2 and snapshot(workdir) == before


def test_a_name_loads_the_same_run_as_its_path():
    by_name = mf.load_run("paper_fig3_quick", steps=30_000)
    by_path = mf.load_run(str(RUNS / "paper_fig3_quick.toml"), steps=30_000)
    assert by_name.to_dict() == by_path.to_dict() and by_name.steps == 30_000


def test_sweep_takes_a_name_and_names_its_output_after_it(workdir, capsys):
    # --resume of a file that does not exist stops after the run file is loaded and before anything runs: the
    # message shows the output path derived from the name (a sweep by name from an installed package:
    # tests/test_install.py)
    assert cli(["sweep", "paper_fig3_quick", "--resume"]) == 2
    assert "output 'results/paper_fig3_quick.h5' does not exist" in capsys.readouterr().err
