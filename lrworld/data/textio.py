"""Opening published text files: gzip detected from the file's magic bytes, not its name, and a
`.gz` twin found when the plain name is configured (or the other way round).

Publishers ship the same file compressed or not (Amazon's `meta_X.json.gz`, a user's unpacked
`meta_X.json`); a researcher should not have to say which.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from lrworld.data.contract import DataError

GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: str | Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def twin(name: str) -> str:
    """The other spelling of a file name: `x.json` <-> `x.json.gz`."""
    return name[:-3] if name.endswith(".gz") else name + ".gz"


def resolve(folder: str | Path, name: str) -> Path:
    """`folder/name`, or its `.gz` twin when only that exists (the configured name otherwise)."""
    path = Path(folder) / name
    other = Path(folder) / twin(name)
    return other if not path.exists() and other.exists() else path


def require(path: str | Path) -> Path:
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: file not found (nor {twin(path.name)})")
    return path


def open_text(path: str | Path, encoding: str = "utf-8", errors: str = "strict"):
    """A text stream over a plain or gzip file (newlines untranslated: CRLF is stripped by callers)."""
    path = require(path)
    # a UTF-8 BOM would stay glued to the first field (Netflix's movie 1 then reads as a header row)
    if encoding.lower().replace("_", "-") in ("utf-8", "utf8"):
        encoding = "utf-8-sig"
    if is_gzip(path):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding=encoding, errors=errors, newline="")
    return open(path, encoding=encoding, errors=errors, newline="")
