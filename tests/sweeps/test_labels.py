"""Classification over a sweep (docs/storage.md §4): evidence stored by the workers, `meanfield analyze`, the plots."""
import json
import subprocess
import sys

import h5py
import numpy as np
import pytest
from dask.distributed import Client

import meanfield as mf
from meanfield.analysis import LABELS, Thresholds, classify
from meanfield.sweeps.results.labels import analyze

from .helpers import tiny_text

RUN = tiny_text(num=6, steps=3200, transient=1600, lyapunov=2, chunk=3).replace(
    "beta_o = { start = 1.0, stop = 2.6, num = 6 }", "beta_o = [0.5, 1.3, 2.5, 0.6, 1.35, 2.6]").replace(
    "tail = 5", "tail = 1600")


@pytest.fixture(scope="module")
def classified(tmp_path_factory):
    path = tmp_path_factory.mktemp("analysis") / "run.h5"
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        mf.sweep(mf.load_run(RUN), path, place=mf.Place(client=client), progress=False)
    return path


def test_analyze_equals_classify_on_the_recorded_tails(classified):
    fractions = analyze(classified)
    with h5py.File(classified, "r") as f:
        codes = f["analysis/label"][...]
        labels = json.loads(f["analysis"].attrs["labels"])
        tails, lam, err = f["tail_mo_se"][...], f["lyapunov"][...], f["lyapunov_stderr"][...]
    assert labels == list(LABELS)
    # the tail is the whole recorded series here, so classifying it directly must give the same labels; the
    # positional encoding forces the map with period L = 4 (docs/classification.md §2)
    for i in range(len(codes)):
        assert LABELS[codes[i]] == classify(tails[i], lam[i], err[i], forcing_period=4).label
    by_beta = dict(zip([0.5, 1.3, 2.5, 0.6, 1.35, 2.6], (LABELS[c] for c in codes)))
    assert by_beta[0.5] == "fixed_point"            # docs/model.md §9: β = 0.5 decays to a fixed point
    assert by_beta[1.3] == "chaotic"                # λ1 ≈ 0.14 (tests/simulate)
    assert abs(sum(fractions.values()) - 1) < 1e-12


def test_thresholds_change_labels_without_rerunning(classified):
    strict = analyze(classified, Thresholds(z=1e6))
    assert strict["chaotic"] == 0                   # no exponent is significant any more


@pytest.mark.slow  # one CLI process per figure: CI, not the fast loop
@pytest.mark.system
def test_cli_analyze_and_plots(classified, tmp_path):
    run = [sys.executable, "-m", "meanfield.cli"]
    done = subprocess.run(run + ["analyze", str(classified)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "analysis written" in done.stdout
    bad = subprocess.run(run + ["analyze", str(classified), "--set", "nonsense=1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "nonsense" in bad.stderr
    for kind in ("bifurcation", "density", "classes", "lyapunov"):
        out = tmp_path / f"{kind}.pdf"
        done = subprocess.run(run + ["plot", kind, str(classified), "-o", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert out.stat().st_size > 1000
    wrong = subprocess.run(run + ["plot", "phase", str(classified)], capture_output=True, text=True)
    assert wrong.returncode == 2 and "2-D sweep" in wrong.stderr


def test_evidence_of_another_classifier_is_not_re_decided(classified):
    import numpy as np

    from meanfield.errors import StoreError
    from meanfield.sweeps.results.labels import decide_points
    old_keys = ("lambda1", "lambda1_stderr", "lambda2", "lambda2_stderr", "period", "amplitude", "max_abs",
                "chaos01_k", "spectral_entropy", "distinct_count", "section_points")
    with pytest.raises(StoreError, match="older classifier"):
        decide_points(np.zeros((2, len(old_keys))), keys=old_keys)
    # the positional encoding cycles with period L = 4, seen every k-th step: L / gcd(L, k) recorded rows
    model = mf.presets.paper()
    assert [model.forcing_period(k) for k in (1, 2, 3, 4)] == [4, 2, 4, 1]


TORUS_RUN = tiny_text(num=4, steps=300_000, transient=200_000, lyapunov=0, chunk=2).replace(
    "beta_o = { start = 1.0, stop = 2.6, num = 4 }", "beta_o = [1.244, 0.5, 1.247, 1.26, 1.2502562]").replace(
    'observables = ["mo_se", "att"]', 'observables = ["mo_se"]').replace("lyapunov = 0\n", "")


@pytest.mark.integration      # an in-process Dask cluster
def test_the_results_carry_each_toruss_rotation_number_and_each_locked_cycles_fraction(tmp_path):
    # two independent measurements of one number: the sweep's, q times the torus generator the classifier found
    # in the spectral lines of mo_se, and meanfield.analysis.rotation_number's angle average on the attention rows of a
    # run of its own (measured 7e-9 to 1.2e-8 apart: the lines' precision, ≈ 1e-9 cycles per sample, times q = 4);
    # NaN where there is no torus (β_o = 0.5 rests on its fixed point); inside the 1:4 tongue (β_o = 1.2502562) the
    # 16-step cycle is locked at exactly 1/4, as the angle average of a run of its own says
    from meanfield.sweeps.results.dataset import sweep_results
    path = tmp_path / "torus.h5"
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        mf.sweep(mf.load_run(TORUS_RUN), path, place=mf.Place(client=client), progress=False)
    ds = sweep_results(path)
    rotation = dict(zip(ds["beta_o"].values.tolist(), ds["rotation"].values.tolist()))
    assert np.isnan(rotation[0.5])
    for beta in (1.244, 1.247, 1.26):
        angles = mf.analysis.rotation_number(mf.simulate(mf.presets.paper(beta_o=beta), 300_000, 200_000))
        assert rotation[beta] == pytest.approx(angles.number, abs=1e-7)
    locked = {b: (int(p), int(k)) for b, p, k in zip(ds["beta_o"].values.tolist(), ds["lock_p"].values,
                                                    ds["lock_k"].values)}
    angles = mf.analysis.rotation_number(mf.simulate(mf.presets.paper(beta_o=1.2502562), 300_000, 200_000))
    assert rotation[1.2502562] == 0.25 and locked[1.2502562] == angles.locked == (1, 4)
    assert all(locked[b] == (0, 0) for b in (1.244, 0.5, 1.247, 1.26))


def test_reading_results_never_validates_the_run_again(classified, tmp_path, monkeypatch):
    """sweep_results reads the file: with the run-file parser made to fail it still opens a current file, and one
    whose evidence another classifier wrote (its labels then come from the stored tails)."""
    import meanfield.sweeps.config.runfile as runfile
    import meanfield.sweeps.results.labels as labels
    expected = mf.sweep_results(classified)["label"].values

    def refuse(*args, **kwargs):
        raise AssertionError("the run file was parsed again")

    monkeypatch.setattr(runfile, "from_dict", refuse)
    np.testing.assert_array_equal(mf.sweep_results(classified)["label"].values, expected)
    monkeypatch.setattr(labels, "EVIDENCE", labels.EVIDENCE + ("a_newer_measure",))     # the file's is stale now
    np.testing.assert_array_equal(mf.sweep_results(classified)["label"].values, expected)
