"""A release manifest names only plain files inside its folder, and unpacking has a size cap: a
manifest listing a device, an absolute path or `..`, a link to a device, and an archive that
unpacks past the cap each stop in one line within seconds, reading nothing outside the release."""

import hashlib
import io
import json
import os
import random
import time
import zipfile
from pathlib import Path

import pytest

from lrworld.cli import main
from lrworld.data import archives
from lrworld.data.contract import DataError
from lrworld.release.layout import FORMAT


def release(folder: Path, files: dict[str, str]) -> Path:
    """A release folder whose manifest lists `files` ({path: sha256}); real files where they are inside."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "release.json").write_text(json.dumps({"format": FORMAT, "files": files}))
    return folder


@pytest.mark.parametrize("entry, why", [
    ("/dev/zero", "is an absolute path"),
    ("/etc/hostname", "is an absolute path"),
    ("../x", "leads outside the release"),
    ("data/../../x", "leads outside the release"),
])
def test_a_manifest_entry_outside_the_release_stops_verify_in_one_line(tmp_path, capsys, entry, why):
    (tmp_path / "x").write_text("outside\n")
    rel = release(tmp_path / "rel", {"data/a.txt": hashlib.sha256(b"a\n").hexdigest(), entry: "0" * 64})
    (rel / "data").mkdir()
    (rel / "data/a.txt").write_text("a\n")
    t0 = time.monotonic()
    assert main(["verify", str(rel)]) == 2
    err = capsys.readouterr().err.strip()
    assert time.monotonic() - t0 < 5
    assert err.startswith(f"lrworld verify: {rel}/release.json: files entry {entry!r} {why}") and "\n" not in err


def test_a_link_to_a_device_or_out_of_the_release_is_not_read(tmp_path, capsys):
    (tmp_path / "secret").write_text("outside\n")
    rel = release(tmp_path / "rel", {"data/zero": "0" * 64, "data/out": hashlib.sha256(b"outside\n").hexdigest()})
    (rel / "data").mkdir()
    os.symlink("/dev/zero", rel / "data/zero")
    os.symlink(tmp_path / "secret", rel / "data/out")
    t0 = time.monotonic()
    assert main(["verify", str(rel)]) == 1
    out = capsys.readouterr().out
    assert time.monotonic() - t0 < 5
    # the link out of the release has the right sha256 behind it, and is still refused
    assert "NOT_A_FILE data/out" in out and "NOT_A_FILE data/zero" in out and "OK" not in out


def bomb(path: Path, member_bytes: int, members: int = 1) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for i in range(members):
            zf.writestr(f"u{i}.data", b"\0" * member_bytes)
    return path


def test_an_archive_past_the_cap_stops_at_the_cap_in_one_line(tmp_path):
    archive = bomb(tmp_path / "bomb.zip", 64 << 20)  # 64 MiB of zeros, 64 KiB packed
    assert archive.stat().st_size < 1 << 20
    dest = tmp_path / "out"
    dest.mkdir()
    wanted = archives.Wanted(["u0.data"], [], max_bytes=8 << 20)
    t0 = time.monotonic()
    with pytest.raises(DataError) as info:
        archives.extract(archive, wanted, "", dest)
    assert time.monotonic() - t0 < 5
    assert str(info.value) == (f"{archive}: unpacks to more than 8,388,608 bytes (at member 'u0.data'); refused as a "
                               "decompression bomb (config key max_extract_bytes raises the cap)")
    assert wanted.written <= (8 << 20) + (1 << 20)  # stopped within one chunk of the cap
    assert [p for p in dest.rglob("*")] == []  # the partial member is removed


def test_the_cap_counts_every_member_together_and_a_genuine_archive_passes(tmp_path):
    archive = bomb(tmp_path / "many.zip", 3 << 20, members=4)  # 4 x 3 MiB: each under 8 MiB, 12 MiB in all
    wanted = archives.Wanted([], ["*"], max_bytes=8 << 20)
    with pytest.raises(DataError, match="unpacks to more than 8,388,608 bytes .at member 'u2.data'"):
        archives.extract(archive, wanted, "", tmp_path / "a")
    ok = archives.Wanted([], ["*"], max_bytes=12 << 20)
    archives.extract(archive, ok, "", tmp_path / "b")
    assert ok.written == 12 << 20 and len(list((tmp_path / "b").iterdir())) == 4


def test_the_default_cap_is_in_proportion_to_the_archive(tmp_path, shared_data):
    archive = tmp_path / "bomb.zip"  # 2 MiB that do not compress, and 200 MiB of zeros
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("noise.bin", random.Random(0).randbytes(2 << 20))
        with zf.open("u.data", "w") as fh:
            for _ in range(200):
                fh.write(b"\0" * (1 << 20))
    size = archive.stat().st_size
    assert 2.1e6 < size < 2.4e6
    wanted = archives.Wanted([], ["*"])  # config's max_extract_bytes: null
    assert wanted.max_bytes == 100_000_000  # the floor, before any archive
    t0 = time.monotonic()
    with pytest.raises(DataError) as info:
        archives.extract(archive, wanted, "", tmp_path / "out")
    assert time.monotonic() - t0 < 10
    assert str(info.value) == (f"{archive}: unpacks to more than {50 * size:,} bytes (at member 'u.data'); refused as "
                               f"a decompression bomb (the default cap: 50 times the archive's {size:,} bytes, at least "
                               "100,000,000; config key max_extract_bytes sets another)")
    assert wanted.written <= 50 * size + (1 << 20)  # about 110 MB written, not the 212 MB inside
    # a genuine archive: ML-100K's files, 3.3 times their deflated size, unpack under the default cap
    real = tmp_path / "ml-100k.zip"
    with zipfile.ZipFile(real, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for f in sorted((shared_data / "movielens-100k/raw").iterdir()):
            zf.write(f, f"ml-100k/{f.name}")
    ok = archives.Wanted(["u.data", "u.item"], [])
    archives.extract(real, ok, "ml-100k", tmp_path / "ml")
    assert ok.missing() == [] and (tmp_path / "ml/u.data").read_bytes() == (shared_data / "movielens-100k/raw/u.data").read_bytes()
