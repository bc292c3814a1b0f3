"""Unpacking downloads: the kind is read from the file's first bytes (zip, tar, gzip-compressed tar,
gzip, plain), never from its name, and only wanted members are written, each atomically.

Wanted members are the dataset's files (relative to `member_dir` inside the archive; a `.gz`
member stands for the plain name too) and `extract` glob patterns. An archive member that is itself
an archive (the Netflix Prize's `download/training_set.tar`) is opened in turn.
"""

from __future__ import annotations

import fnmatch
import gzip
import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO, Iterator

from lrworld.core.io import atomic_path
from lrworld.data.contract import DataError
from lrworld.data.textio import GZIP_MAGIC, twin

_NESTED = (".tar", ".tar.gz", ".tgz", ".zip")
# What one fetch may unpack, all members together, unless config key `max_extract_bytes` sets a
# number: EXTRACT_RATIO times the archives it unpacks, at least EXTRACT_FLOOR. The real datasets
# unpack to 2.4-3.5 times their deflated size (a nested archive counts twice: about 6 times), and
# deflate reaches 1,000 times on a bomb; so a 2.2 MB zip bomb stops after 110 MB, not 2.2 GB, and
# no genuine archive comes near the cap.
EXTRACT_RATIO = 50
EXTRACT_FLOOR = 100_000_000
_CHUNK = 1 << 20


def kind(path: Path) -> str:
    with open(path, "rb") as fh:
        head = fh.read(512)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    if head.startswith(GZIP_MAGIC):
        with gzip.open(path, "rb") as fh:
            inner = fh.read(512)
        return "tar" if len(inner) >= 262 and inner[257:262] == b"ustar" else "gzip"
    return "plain"


class Wanted:
    def __init__(self, names: list[str], patterns: list[str], max_bytes: int | None = None):
        """`max_bytes`: the cap on all members together; None: in proportion to the archives
        (EXTRACT_RATIO times their bytes, at least EXTRACT_FLOOR)."""
        self.names = set(names)
        self.fixed = max_bytes
        self.archive_bytes = 0  # of the archives extract() was given (nested ones are in them)
        self.written = 0
        self.patterns = list(patterns)
        self.found: set[str] = set()
        # members refused for their path (absolute, '..'): {member name: archive}, so that a needed
        # file whose only copy was one of them is reported as refused, not as absent
        self.refused: dict[str, str] = {}

    @property
    def max_bytes(self) -> int:
        return self.fixed if self.fixed is not None else max(EXTRACT_FLOOR, EXTRACT_RATIO * self.archive_bytes)

    def match(self, rel: str) -> bool:
        return rel in self.names or twin(rel) in self.names or any(fnmatch.fnmatch(rel, p) for p in self.patterns)

    def missing(self) -> list[str]:
        return sorted(n for n in self.names if n not in self.found and twin(n) not in self.found)

    def refused_copy(self, name: str) -> tuple[str, str] | None:
        """(member, archive) of a refused member that, without its '..' or leading '/', is `name`."""
        for member, archive in self.refused.items():
            inner = "/".join(p for p in PurePosixPath(member).parts if p not in ("/", "..", "."))
            if inner in (name, twin(name)) or inner.endswith(("/" + name, "/" + twin(name))):
                return member, archive
        return None


def _safe(rel: str) -> bool:
    p = PurePosixPath(rel)
    return bool(rel) and not p.is_absolute() and ".." not in p.parts


def _copy(fh: IO[bytes], out: IO[bytes], wanted: Wanted, archive: Path, name: str) -> None:
    """Copy a member in chunks, stopping the moment the fetch's total passes its cap."""
    while chunk := fh.read(_CHUNK):
        wanted.written += len(chunk)
        if wanted.written > wanted.max_bytes:
            raise DataError(f"{archive}: unpacks to more than {wanted.max_bytes:,} bytes (at member {name!r}); "
                            f"refused as a decompression bomb ({_cap_why(wanted)})")
        out.write(chunk)


def _cap_why(wanted: Wanted) -> str:
    if wanted.fixed is not None:
        return "config key max_extract_bytes raises the cap"
    return (f"the default cap: {EXTRACT_RATIO} times the archive's {wanted.archive_bytes:,} bytes, at least "
            f"{EXTRACT_FLOOR:,}; config key max_extract_bytes sets another")


def _members(path: Path) -> Iterator[tuple[str, IO[bytes]]]:
    if kind(path) == "zip":
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    with zf.open(info) as fh:
                        yield info.filename, fh
        return
    with tarfile.open(path, "r:*") as tf:
        for m in tf:
            if m.isfile():
                fh = tf.extractfile(m)
                if fh is not None:
                    yield m.name, fh


def extract(archive: Path, wanted: Wanted, member_dir: str, dest: Path) -> None:
    """Write the wanted members of `archive` under `dest` (its size raises a proportional cap)."""
    wanted.archive_bytes += Path(archive).stat().st_size
    _extract(archive, wanted, member_dir, dest)


def _extract(archive: Path, wanted: Wanted, member_dir: str, dest: Path) -> None:
    prefix = member_dir.strip("/")
    for name, fh in _members(archive):
        rel = name[len(prefix) + 1:] if prefix and name.startswith(prefix + "/") else (None if prefix else name)
        if rel is not None and not _safe(rel):
            wanted.refused[name] = archive.name
        elif rel is not None and wanted.match(rel):
            with atomic_path(dest / rel) as tmp, open(tmp, "wb") as out:
                _copy(fh, out, wanted, archive, name)
            wanted.found.add(rel)
        elif name.endswith(_NESTED) and wanted.missing():
            with tempfile.TemporaryDirectory(dir=dest) as tmpdir:
                inner = Path(tmpdir) / PurePosixPath(name).name
                with open(inner, "wb") as out:
                    _copy(fh, out, wanted, archive, name)
                _extract(inner, wanted, "", dest)


def place(download: Path, name: str, wanted: Wanted, dest: Path, url: str) -> None:
    """A single (plain or gzip) file: kept under its name when that, or its twin, is wanted."""
    if not wanted.match(name):
        raise DataError(f"{url}: a single file named {name!r}, but the dataset reads {sorted(wanted.names)} "
                        f"(set the download's name)")
    target = dest / name
    if target.exists():
        target.unlink()
    try:
        target.hardlink_to(download)  # the download stays for a rerun without a second copy on disk
    except OSError:
        shutil.copyfile(download, target)
    wanted.found.add(name)
