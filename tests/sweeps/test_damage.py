"""Damage to the result file itself (docs/storage.md §8): truncation at random offsets, a zero-length file,
random bytes over metadata and over data, a full disk mid-run. For a 1-D sweep, a 2-D grid and a census, the
same command rebuilds the file from its journal, recomputes only what the journal lacks, and ends with every
per-point dataset bitwise equal to an undamaged run's. Each case also checks that the damage was real: the
damaged file is refused (or fails its checksums) without the journal."""
from __future__ import annotations

import os
import shutil
import subprocess

import h5py
import numpy as np
import pytest

import meanfield as mf
from meanfield.errors import StoreError
from meanfield.sweeps.store import sweep_state
from meanfield.sweeps.store.journal import journal_path
from meanfield.sweeps.store.recover import recover
from meanfield.sweeps.store.verify import verify_file

from .helpers import assert_same, read_all, tiny_text

# In-process Dask (the local_client fixture below): the integration tier, in the fast loop (tests/conftest.py);
# only the disk-full case, which mounts a tmpfs, is a system test.

CENSUS = """
name = "census"
steps = 3000
transient = 2000
chunk = 1

[model]
preset = "paper"

[grid]
beta_o = [1.0, 1.3, 2.0]

[attractors]
starts = 4
"""

KINDS = {
    "1d": tiny_text(num=12, chunk=2),
    "2d": tiny_text(num=4, chunk=2).replace("[grid]\n", "[grid]\nbeta_att = [2.0, 2.2, 2.4]\n"),
    "census": CENSUS,
}
#: Fixed attributes compared besides the datasets (provenance and times differ by design).
ATTRIBUTES = ("run_key", "run_json", "run_toml", "model", "axes", "coordinate_crc32")


@pytest.fixture(scope="module")
def local_client():
    from dask.distributed import Client
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as c:
        yield c


@pytest.fixture(scope="module")
def references(local_client, tmp_path_factory):
    """kind -> path of an undamaged sweep (its journal beside it)."""
    base = tmp_path_factory.mktemp("damage_ref")
    out = {}
    for kind, text in KINDS.items():
        out[kind] = base / f"{kind}.h5"
        mf.sweep(text, out[kind], place=mf.Place(client=local_client), progress=False)
        verify_file(out[kind])
    return out


def _attributes(path) -> dict:
    with h5py.File(path, "r", locking=False) as f:
        return {k: f.attrs[k] for k in ATTRIBUTES}


def assert_like_reference(path, reference):
    assert_same(read_all(path), read_all(reference))
    assert _attributes(path) == _attributes(reference)
    with h5py.File(reference, "r", locking=False) as f:
        groups = sorted(f["attractors"]) if "attractors" in f else []
    for direction in groups:
        a = mf.sweeps.store.census.open_attractors(path, direction)
        b = mf.sweeps.store.census.open_attractors(reference, direction)
        for name in b.data_vars:
            np.testing.assert_array_equal(a[name].values, b[name].values, err_msg=f"{direction}/{name}")


def damaged(reference, out, data: bytes, journal: bytes | None = None):
    """``out`` holding ``data`` and, beside it, the reference's journal (or ``journal``)."""
    out.write_bytes(data)
    if journal is None:
        shutil.copy(journal_path(reference), journal_path(out))
    else:
        with open(journal_path(out), "wb") as fh:
            fh.write(journal)


def sweep_again(kind, out, client, capfd) -> str:
    mf.sweep(KINDS[kind], out, place=mf.Place(client=client), progress=False)
    return capfd.readouterr().err


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_truncated_at_20_offsets_or_emptied(kind, references, local_client, tmp_path, capfd):
    ref = references[kind]
    data, journal = ref.read_bytes(), open(journal_path(ref), "rb").read()
    rng = np.random.default_rng(37)
    offsets = [0] + sorted(int(o) for o in rng.integers(1, len(data), 19))
    out = tmp_path / "out.h5"
    damaged(ref, out, b"")
    os.remove(journal_path(out))                       # without the journal: refused, nothing to rebuild from
    with pytest.raises(StoreError, match="no journal"):
        mf.sweep(KINDS[kind], out, place=mf.Place(client=local_client), progress=False)
    for n, offset in enumerate(offsets):
        # every fourth case the journal is cut too (a torn last record): those chunks are computed again
        cut = journal[:int(rng.integers(len(journal) // 3, len(journal)))] if n % 4 == 3 else None
        damaged(ref, out, data[:offset], cut)
        with pytest.raises(StoreError):
            sweep_state(out)                           # the damage is real: the file alone is unreadable
        err = sweep_again(kind, out, local_client, capfd)
        assert "rebuilding it from" in err and "points recovered" in err, err
        if cut is None:
            assert f"{mf.load_run(KINDS[kind]).n_points} points recovered" in err.replace("/", " "), err
        assert_like_reference(out, ref)
        verify_file(out)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_random_bytes_over_metadata(kind, references, local_client, tmp_path, capfd):
    """100 random bytes at a random place before the first dataset's data (superblock, object headers,
    attributes, B-trees): detected, or harmless (then the file already equals the reference)."""
    ref = references[kind]
    with h5py.File(ref, "r") as f:
        first = min(obj.id.get_offset() for obj in f.values()
                    if isinstance(obj, h5py.Dataset) and obj.id.get_offset() is not None)
    rng = np.random.default_rng(370)
    out = tmp_path / "out.h5"
    detected = 0
    for _ in range(6):
        data = bytearray(ref.read_bytes())
        at = int(rng.integers(0, first - 100))
        data[at:at + 100] = rng.integers(0, 256, 100, dtype=np.uint8).tobytes()
        damaged(ref, out, bytes(data))
        try:
            verify_file(out)
            _attributes(out)
        except (StoreError, OSError, KeyError):
            detected += 1
        err = sweep_again(kind, out, local_client, capfd)
        assert_like_reference(out, ref)
        if "damaged" in err or "readable" in err:
            assert "rebuilding it from" in err, err
    assert detected >= 3, "the random bytes hit nothing: the test would not see a failure"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_random_bytes_over_data_are_caught_by_the_checksums(kind, references, local_client, tmp_path, capfd):
    ref = references[kind]
    name = "census_summary" if kind == "census" else "hist"
    with h5py.File(ref, "r") as f:
        offset, size = f[name].id.get_offset(), f[name].id.get_storage_size()
    rng = np.random.default_rng(3700)
    out = tmp_path / "out.h5"
    for journaled in (True, False):
        data = bytearray(ref.read_bytes())
        at = offset + int(rng.integers(0, size - 300))
        data[at:at + 300] = rng.integers(0, 256, 300, dtype=np.uint8).tobytes()
        damaged(ref, out, bytes(data))
        if not journaled:
            os.remove(journal_path(out))
        with pytest.raises(StoreError, match=f"dataset '{name}' fails its checksums"):
            verify_file(out)
        with pytest.raises(StoreError, match=name):
            mf.open_run(out)
        with h5py.File(out, "r") as f:                  # without the checksums these values would be served
            assert f["done"][...].all() and not np.array_equal(f[name][...], read_all(ref)[name])
        err = sweep_again(kind, out, local_client, capfd)
        assert f"dataset '{name}' fails its checksums" in err, err
        assert ("rebuilding it from" in err) if journaled else ("computed again" in err), err
        assert_like_reference(out, ref)


def test_info_verify_and_recover_on_the_command_line(references, tmp_path):
    from meanfield.cli import main
    ref = references["1d"]
    out = tmp_path / "out.h5"
    data = ref.read_bytes()
    damaged(ref, out, data[:len(data) // 2])
    assert main(["info", "--verify", str(out)]) == 2
    assert main(["recover", str(out)]) == 0
    assert main(["info", "--verify", str(out)]) == 0
    assert_same(read_all(out), read_all(ref))
    assert recover(out)["rebuilt"] is False


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB tmpfs mounted on tmp_path/disk (root only), unmounted afterwards."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"a tmpfs cannot be mounted here: {done.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.mark.system
def test_a_disk_full_mid_run_stops_clearly_and_resumes(references, local_client, small_disk):
    """After the third chunk a filler takes every free byte: the next chunk's journal record cannot be written,
    the sweep stops with one line and keeps every finished chunk; once the filler is gone the same call ends
    with the reference file."""
    out = small_disk / "out.h5"
    filler = small_disk / "filler"

    def fill(done, total):
        if done >= 6 and not filler.exists():
            free = shutil.disk_usage(small_disk).free
            with open(filler, "wb") as fh:
                try:
                    fh.write(bytes(free))
                except OSError:
                    pass
    with pytest.raises(StoreError) as err:
        mf.sweep(KINDS["1d"], out, place=mf.Place(client=local_client), progress=False, callback=fill)
    message = str(err.value)
    assert "\n" not in message and "No space left on device" in message and "run again" in message, message
    assert filler.exists()
    os.remove(filler)
    ref = references["1d"]
    mf.sweep(KINDS["1d"], out, place=mf.Place(client=local_client), progress=False)
    assert_like_reference(out, ref)
    kept = sum(1 for indices, _ in _records(out))
    assert kept == 6, kept                             # every chunk finished before the disk filled, once each


def _records(path):
    from meanfield.sweeps.store.journal import read_journal
    from meanfield.sweeps.store.sweep import checked_names, sweep_layout
    return read_journal(journal_path(path)).records(checked_names(sweep_layout(mf.load_run(KINDS["1d"]))))
