"""Compressed sweep files (docs/storage.md §3): the same numbers as a contiguous file whatever the grid chunk,
chunks compressed by the workers and stored as they are, damage to a compressed chunk found and repaired, and a
file written before compression existed (by meanfield 033c79f) resumed."""
from __future__ import annotations

import os
import shutil

import h5py
import numpy as np
import pytest

import meanfield as mf
import meanfield.sweeps.execute.run as sweep_run
from meanfield.errors import StoreError
from meanfield.sweeps.store import chunks
from meanfield.sweeps.store.journal import CHUNK, _frame, _pack, journal_path, read_journal
from meanfield.sweeps.store.recover import recover
from meanfield.sweeps.store.verify import verify_file

from .helpers import assert_same, read_all, tiny_text

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "before_compression")
GRID = "[grid]\nbeta_att = [2.0, 2.2, 2.4]\n"
#: 1-D, a 3 x 5 grid cut into pieces of rows (the last piece of each row short), and into two rows per chunk
#: (the last chunk half empty): every kind of edge chunk the workers fill.
CASES = {"1d": tiny_text(num=12, chunk=5), "pieces": tiny_text(num=5, chunk=2).replace("[grid]\n", GRID),
         "rows": tiny_text(num=5, chunk=10).replace("[grid]\n", GRID)}


@pytest.fixture(scope="module")
def local_client():
    from dask.distributed import Client
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as c:
        yield c


@pytest.fixture
def compress_everything(monkeypatch):
    """Every sweep file compressed, however small, and the chunks stored directly counted."""
    monkeypatch.setattr(chunks, "COMPRESS_FROM_BYTES", 0)
    stored = []
    write = sweep_run.write_packed
    monkeypatch.setattr(sweep_run, "write_packed", lambda f, run, indices, *more: (
        stored.append(len(indices)), write(f, run, indices, *more)))
    return stored


@pytest.fixture(scope="module")
def contiguous(local_client, tmp_path_factory):
    """case -> a contiguous sweep file of it (the layout of every file before compression)."""
    base = tmp_path_factory.mktemp("contiguous")
    out = {}
    for case, text in CASES.items():
        out[case] = base / f"{case}.h5"
        mf.sweep(text, out[case], place=mf.Place(client=local_client), progress=False)
        with h5py.File(out[case], "r") as f:
            assert f["hist"].chunks is None
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_compressed_file_holds_the_contiguous_files_numbers(case, contiguous, local_client, tmp_path,
                                                            compress_everything):
    out = tmp_path / "c.h5"
    mf.sweep(CASES[case], out, place=mf.Place(client=local_client), progress=False)
    run = mf.load_run(CASES[case])
    assert sum(compress_everything) == run.n_points                  # every task's chunks stored as they came
    with h5py.File(out, "r") as f:
        for name in ("hist", "band_values", "final_att", "checksum", "done"):
            assert f[name].compression == "gzip" and f[name].shuffle, name
            assert f[name].chunks[:len(run.shape)] == chunks.grid_chunk(run.shape, run.chunk), name
    assert_same(read_all(out), read_all(contiguous[case]))
    verify_file(out)
    with mf.open_run(out) as ds:                                      # xarray (h5netcdf) reads the filters
        np.testing.assert_array_equal(ds["hist"].values, read_all(contiguous[case])["hist"])
    contents = read_journal(journal_path(out))                          # where the chunks lie, not the data
    assert not list(contents.records(["hist"]))
    assert sorted(i for record in contents.index_records() for i in record["index"]) == list(range(run.n_points))


def test_a_damaged_compressed_chunk_is_found_and_repaired(contiguous, local_client, tmp_path, capfd,
                                                          compress_everything):
    """Random bytes over the stored bytes of one chunk of ``hist``: the chunk no longer inflates, its points
    are damaged; with the journal the file is rebuilt, without it those points are computed again."""
    text, reference = CASES["pieces"], read_all(contiguous["pieces"])
    good = tmp_path / "good.h5"
    mf.sweep(text, good, place=mf.Place(client=local_client), progress=False)
    with h5py.File(good, "r") as f:
        info = f["hist"].id.get_chunk_info(3)
        first = int(np.ravel_multi_index(info.chunk_offset[:2], f["done"].shape))
    rng = np.random.default_rng(48)
    for journaled in (True, False):
        out = tmp_path / "out.h5"
        data = bytearray(good.read_bytes())
        data[info.byte_offset:info.byte_offset + info.size] = rng.integers(0, 256, info.size, np.uint8).tobytes()
        out.write_bytes(bytes(data))
        shutil.copy(journal_path(good), journal_path(out))
        if not journaled:
            os.remove(journal_path(out))
        with pytest.raises(StoreError, match=f"dataset 'hist' fails its checksums at 2 point.*flat index {first}"):
            verify_file(out)
        capfd.readouterr()
        mf.sweep(text, out, place=mf.Place(client=local_client), progress=False)
        err = capfd.readouterr().err
        assert ("rebuilding it from" in err) if journaled else ("those 2 points are computed again" in err), err
        assert_same(read_all(out), reference)
        verify_file(out)


def test_a_compressed_file_is_rebuilt_from_the_chunks_it_still_holds(contiguous, local_client, tmp_path, capfd,
                                                                     compress_everything):
    """Its superblock overwritten, then cut at seeded offsets, then emptied: each time the same command rebuilds
    it from the chunks the damaged file still holds intact (all of them after the superblock; fewer the shorter
    the cut) and computes the rest, bitwise the reference; the journal is written anew for the new file, so the
    next damage is repaired from it too. ``meanfield recover`` does the same without computing."""
    text, reference, n = CASES["rows"], read_all(contiguous["rows"]), 15
    out = tmp_path / "out.h5"
    mf.sweep(text, out, place=mf.Place(client=local_client), progress=False)
    rng = np.random.default_rng(4848)
    data = bytearray(out.read_bytes())
    data[:64] = rng.integers(0, 256, 64, dtype=np.uint8).tobytes()
    out.write_bytes(bytes(data))
    capfd.readouterr()
    mf.sweep(text, out, place=mf.Place(client=local_client), progress=False)
    err = capfd.readouterr().err
    assert f"rebuilding it from {journal_path(out)}: {n}/{n} points recovered" in err, err
    assert sum(compress_everything) == n                                 # the first run's; nothing computed since
    assert_same(read_all(out), reference)
    for cut in ("first record's end", "last record's end - 1", "random", "emptied"):
        records = list(read_journal(journal_path(out)).index_records())
        ends = sorted(int((r["position"] + r["size"]).max()) for r in records)
        offset = {"first record's end": ends[0], "last record's end - 1": ends[-1] - 1, "emptied": 0,
                  "random": int(rng.integers(1, ends[-1]))}[cut]
        kept = sum(len(r["index"]) for r in records if (r["position"] + r["size"]).max() <= offset)
        out.write_bytes(out.read_bytes()[:offset])
        capfd.readouterr()
        computed = sum(compress_everything)
        mf.sweep(text, out, place=mf.Place(client=local_client), progress=False)
        err = capfd.readouterr().err
        assert f"{kept}/{n} points recovered" in err, (cut, err)
        assert sum(compress_everything) - computed == n - kept                # only the lost points computed
        assert_same(read_all(out), reference)
        verify_file(out)
    data = bytearray(out.read_bytes())
    data[:64] = bytes(64)
    out.write_bytes(bytes(data))
    assert recover(out) == {"points": n, "total": n, "dropped": 0, "rebuilt": True}
    assert_same(read_all(out), reference)
    verify_file(out)


def test_a_file_written_before_compression_resumes(contiguous, local_client, tmp_path, compress_everything):
    """meanfield 033c79f stopped this sweep after 6 of 15 points (contiguous datasets, journal records
    uncompressed); this version finishes it in the file's own layout, and its journal still rebuilds it."""
    text = open(os.path.join(DATA, "run.toml")).read()
    out = tmp_path / "old.h5"
    shutil.copy(os.path.join(DATA, "interrupted_033c79f.h5"), out)
    shutil.copy(os.path.join(DATA, "interrupted_033c79f.h5.journal"), journal_path(out))
    before = read_all(out)
    assert mf.sweeps.store.sweep_state(out)["done"] == 6
    fresh = tmp_path / "fresh.h5"
    mf.sweep(text, fresh, place=mf.Place(client=local_client), progress=False)
    mf.sweep(text, out, place=mf.Place(client=local_client), progress=False)
    with h5py.File(out, "r") as f:
        assert f["hist"].chunks is None
    assert_finished(read_all(out), before, read_all(fresh))
    verify_file(out)
    out.write_bytes(b"")                                              # emptied: rebuilt from both kinds of record
    mf.sweep(text, out, place=mf.Place(client=local_client), progress=False)
    assert_finished(read_all(out), before, read_all(fresh))


def assert_finished(ours: dict, before: dict, fresh: dict) -> None:
    """``ours`` keeps the points 033c79f computed as it stored them (``before``) and equals a fresh run of this
    version everywhere else; the old points equal the fresh ones too but for one difference of the classifiers:
    033c79f did not give a cycle locked on a circle its rotation (evidence ``frequency1``: NaN then, p/k per q
    samples now, docs/classification.md §4) — so their evidence, and its checksum, are the old ones."""
    from meanfield.analysis.evidence import EVIDENCE
    old = before["done"].astype(bool)
    assert sorted(ours) == sorted(fresh)
    for name in ours:
        if name in ("evidence", "checksum"):
            np.testing.assert_array_equal(ours[name][~old], fresh[name][~old], err_msg=name)
            np.testing.assert_array_equal(ours[name][old], before[name][old], err_msg=name)
        else:
            np.testing.assert_array_equal(ours[name], fresh[name], err_msg=name)
    f1 = EVIDENCE.index("frequency1")
    newer = np.isnan(before["evidence"][old][:, f1]) & np.isfinite(fresh["evidence"][old][:, f1])
    assert newer.sum() >= 1, "no locked cycle among the old points: this fixture no longer tests the difference"
    same = np.ones(len(EVIDENCE), bool)
    same[f1] = False
    np.testing.assert_array_equal(before["evidence"][old][:, same], fresh["evidence"][old][:, same])
    np.testing.assert_array_equal(before["evidence"][old][~newer], fresh["evidence"][old][~newer])


def test_old_journal_records_are_still_read(tmp_path):
    """A chunk record of a journal written before compression (kind 1, an uncompressed .npz) reads back."""
    arrays = {"hist": np.arange(6, dtype=np.uint32).reshape(2, 3)}
    path = tmp_path / "j"
    path.write_bytes(_frame(CHUNK, _pack([4, 7], arrays, ["hist"])))
    [(indices, read)] = read_journal(path).records(["hist"])
    assert indices.tolist() == [4, 7] and read["hist"].tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("shape, chunk, expected", [((4001,), 64, (64,)), ((10,), 64, (10,)),
                                                     ((300, 300), 16, (1, 16)), ((300, 300), 4096, (13, 300)),
                                                     ((1000, 1000), 4096, (4, 1000)), ((3, 5), 100, (3, 5))])
def test_grid_chunk_holds_at_most_chunk_points(shape, chunk, expected):
    assert chunks.grid_chunk(shape, chunk) == expected


def test_pack_refuses_points_that_are_not_whole_chunks():
    from meanfield.sweeps.execute.tasks import compute_chunk
    from meanfield.sweeps.store.sweep import checked_names, sweep_layout
    run = mf.load_run(CASES["pieces"])                                # chunks [0 1] [2 3] [4] [5 6] ...
    layout = sweep_layout(run)
    names = checked_names(layout)
    for indices, whole in (([0, 2], False), ([1], False), ([3, 2], True), ([4, 0, 1], True)):
        result = compute_chunk(run, np.array(indices), np.full(len(indices), -1))
        packed = chunks.pack(run, layout, names, result)
        assert (packed is not None) == whole, indices
        if whole:
            assert len(packed["hist"]) == len(set(chunks.block_ids(run.shape, run.chunk, indices)))


@pytest.mark.parametrize("steps, tables, expected", [(20, {}, 4096), (2000, {}, 50), (20000, {}, 16),
                                                     (20, {"lyapunov": 3}, 16), (20, {"attractors": {}}, 16)])
def test_default_chunk_follows_the_cost_of_a_point(steps, tables, expected):
    from meanfield.sweeps.config.runfile import default_chunk
    assert default_chunk(steps, tables) == expected
