"""Result files as a researcher reads them (docs/storage.md §1): xarray-native (string coordinates, integer
counts, CF units / long names / flags, no empty dimensions), a model attribute that does not pin a swept
parameter, and provenance records that a resume appends to."""
import json
from pathlib import Path

import numpy as np
import pytest
import xarray
from dask.distributed import Client

import meanfield as mf
from meanfield.analysis import LABELS
from meanfield.analysis.evidence import EVIDENCE
from meanfield.sweeps.results.labels import analyze
from meanfield.sweeps.store.provenance import LIBRARIES
from meanfield.sweeps.store.schema import described

from .helpers import interrupted_sweep, tiny_text

FINITE = Path(__file__).resolve().parents[2] / "runs" / "finite_convergence_quick.toml"


@pytest.fixture(scope="module")
def local_client():
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        yield client


def check_cf(ds) -> None:
    """Every variable and coordinate: its own long_name, and units unless it is a flag or a string coordinate."""
    for name, var in list(ds.variables.items()):
        assert var.attrs.get("long_name") and (described(name) or name in ("label",)), name
        if var.dtype.kind in "OUS":
            continue
        assert "flag_meanings" in var.attrs or var.attrs.get("units") == "1", name
    assert all(size > 0 for size in ds.sizes.values()), dict(ds.sizes)


def test_a_sweep_file_reads_with_plain_xarray(local_client, tmp_path):
    out = tmp_path / "tiny.h5"
    mf.sweep(tiny_text(num=4, lyapunov="false", extra=""), out, place=mf.Place(client=local_client), progress=False)
    with xarray.open_dataset(out, engine="h5netcdf") as ds:
        check_cf(ds)
        assert ds.evidence_key.values.tolist() == list(EVIDENCE)
        assert ds.pair.values.tolist() == ["0|1", "1|0"]
        assert ds.pair_plotted.values.tolist() == [0, 1] and ds.pair_filter.values.tolist() == [1, 0]
        assert ds.feature.dtype.kind == "i" and ds.beta_o.dtype.kind == "f"
        assert "exponent" not in ds.dims                     # lyapunov = 0: no empty exponent dimension
        assert ds.done.dtype == np.uint8 and ds.done.values.all()
        assert ds.done.attrs["flag_meanings"] == "pending done"
        assert json.loads(ds.attrs["model"])["beta_o"] is None      # swept: its values are the grid axis
        assert json.loads(ds.attrs["model"])["beta_att"] == 2.2
        assert "Lyapunov" not in ds.hist.attrs["long_name"] and "histogram" in ds.hist.attrs["long_name"]


def test_open_run_adds_the_analysis_group_with_cf_flags(local_client, tmp_path):
    out = tmp_path / "classified.h5"
    mf.sweep(tiny_text(num=4), out, place=mf.Place(client=local_client), progress=False)
    with mf.open_run(out) as ds:
        assert "label" not in ds                           # not classified yet: the same type, no labels
    analyze(out)
    with mf.open_run(out) as ds:
        check_cf(ds)
        label = ds["label"]
        assert label.dims == ("beta_o",) and label.dtype == np.int8
        assert label.attrs["flag_values"].tolist() == list(range(-1, len(LABELS)))
        assert label.attrs["flag_meanings"].split() == ["not_computed", *LABELS]
        assert "thresholds" in label.attrs and ds["period"].attrs["units"] == "1"
        assert ds.lyapunov.attrs["long_name"].endswith("per step")
    with xarray.open_dataset(out, engine="h5netcdf", group="analysis") as group:
        assert group.label.attrs["flag_meanings"].startswith("not_computed")


def test_finite_sweep_counts_bits_in_integers(local_client, tmp_path):
    out = tmp_path / "finite.h5"
    mf.sweep(mf.load_run(FINITE, **{"finite.replicas": 2}), out, place=mf.Place(client=local_client), progress=False)
    with mf.open_run(out) as ds:
        check_cf(ds)
        assert ds.n_bits.dtype.kind == "i" and ds.n_bits.values.tolist() == [990, 9900, 99000]
        assert ds.finite_error.dims == ("beta_o", "n_bits")


def test_trajectory_file_has_named_dimensions_and_a_record(tmp_path):
    from meanfield.sweeps.store import write_trajectory
    traj = mf.simulate(mf.presets.paper(beta_o=1.3), 300, 100, lyapunov=2)
    out = write_trajectory(tmp_path / "traj.h5", traj)
    with mf.open_run(out) as ds:
        check_cf(ds)
        assert ds.final_att.dims == ("window", "feature") and ds.final_pe.dims == ("window", "pe_bit")
        assert not any(d.startswith("phony") for d in ds.dims)
        assert json.loads(ds.attrs["model"])["beta_o"] == 1.3
        (record,) = json.loads(ds.attrs["provenance"])
        assert record["action"] == "simulate"


def test_each_resume_appends_its_own_provenance_record(local_client, tmp_path):
    text = tiny_text(num=8, chunk=1)
    out = tmp_path / "resumed.h5"

    interrupted_sweep(text, out, 3, place=mf.Place(client=local_client))
    mf.sweep(text, out, place=mf.Place(client=local_client), progress=False)
    mf.sweep(text, out, place=mf.Place(client=local_client), progress=False)     # complete: nothing to do, no record
    with xarray.open_dataset(out, engine="h5netcdf") as ds:
        records = json.loads(ds.attrs["provenance"])
    assert [r["action"] for r in records] == ["create", "resume"]
    first, second = records
    assert 3 <= first["points_done"] < 8 and second["points_done"] == 8
    assert second["points_to_compute"] == 8 - first["points_done"]
    for r in records:
        assert r["cluster"] == "client" and r["workers"] == 1 and r["computed_on"] and r["host"]
        assert r["meanfield_version"] and r["command"] and r["time"] <= r["ended"]
        assert set(LIBRARIES) | {"python"} <= set(r["versions"]) and r["versions"]["numpy"] == np.__version__


def test_a_seed_sweep_claims_no_single_weight_realisation(local_client, tmp_path):
    from meanfield.sweeps.store import read_sweep
    out = tmp_path / "seeds.h5"
    text = (Path(__file__).resolve().parents[2] / "runs" / "reference_seeds.toml").read_text()
    run = mf.load_run(text, **{"steps": 300, "transient": 100, "grid.seed": [2, 5], "grid.beta_o": [1.3]})
    mf.sweep(run, out, place=mf.Place(client=local_client), progress=False)
    with mf.open_run(out) as ds:
        check_cf(ds)
        assert ds.seed.values.tolist() == [2, 5] and ds.seed.dtype.kind == "i"
        model = json.loads(ds.attrs["model"])
        assert model["weights"] is None and model["coefficients"] is None and model["beta_o"] is None
    assert read_sweep(out).model(seed=5) == run.seed_models[5]


def test_open_run_works_while_other_handles_hold_the_file(local_client, tmp_path):
    """The notebook pattern: a dataset kept open with plain xarray (h5py's default file locking), then the
    package's readers in the same process; HDF5 refuses a second open whose locking flags differ, so the
    readers must adapt instead of calling the file unreadable (docs/storage.md §5, readers)."""
    import h5py

    from meanfield.sweeps.store import read_attrs, read_sweep
    from meanfield.sweeps.store.files import READ_LOCKING
    out = tmp_path / "held.h5"
    mf.sweep(tiny_text(num=4), out, place=mf.Place(client=local_client), progress=False)
    analyze(out)
    with mf.open_run(out) as alone:
        expected = alone.lyapunov.values
    held = xarray.open_dataset(out, engine="h5netcdf")
    try:
        with mf.open_run(out) as run:
            np.testing.assert_array_equal(run.lyapunov.values, expected)
            assert "label" in run
        assert read_attrs(out)["kind"] == held.attrs["kind"]
        assert read_sweep(out, ("done",)).arrays["done"].all()
    finally:
        held.close()
    for locking in READ_LOCKING:                  # whatever flags another handle of this process opened it with
        with h5py.File(out, "r", locking=locking):
            with mf.open_run(out) as run:
                np.testing.assert_array_equal(run.lyapunov.values, expected)


def test_an_unreadable_file_is_reported_with_its_own_reason(tmp_path):
    from meanfield.errors import StoreError
    from meanfield.sweeps.store import read_attrs
    bad = tmp_path / "not_hdf5.h5"
    bad.write_text("plain text")
    with pytest.raises(StoreError, match="not a readable HDF5 file") as caught:
        mf.open_run(bad)
    assert "locking" not in str(caught.value)     # the first refusal's reason, not a retry's
    with pytest.raises(StoreError, match="not a readable HDF5 file"):
        read_attrs(bad)
