"""Opening published text files: gzip detected from the file's magic bytes, not its name, and a
`.gz` twin found when the plain name is configured (or the other way round).

Publishers ship the same file compressed or not (Amazon's `meta_X.json.gz`, a user's unpacked
`meta_X.json`); a researcher should not have to say which.
"""

from __future__ import annotations

import gzip
import io
import logging
import zlib
from pathlib import Path

from lrworld.data.contract import DataError

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
log = logging.getLogger(__name__)


ENCODING_HINT = "set the dataset's encoding"


class EncodingError(DataError):
    """A file not readable in the configured encoding; ingest adds the dataset's key."""


BOMS = ((b"\xef\xbb\xbf", "UTF-8"), (b"\xff\xfe\x00\x00", "UTF-32 LE"), (b"\x00\x00\xfe\xff", "UTF-32 BE"),
        (b"\xff\xfe", "UTF-16 LE"), (b"\xfe\xff", "UTF-16 BE"))


def bom_of(path) -> str | None:
    """The byte-order mark the file (plain or gzip) starts with, by name; None without one."""
    try:
        with (_Gzip(Path(path)) if is_gzip(path) else open(path, "rb")) as fh:
            head = fh.read(4)
    except (OSError, DataError):
        return None
    return next((name for mark, name in BOMS if head.startswith(mark)), None)


def _one_byte(encoding: str) -> bool:
    return not encoding.lower().replace("_", "-").startswith(("utf", "u16", "u32"))


def encoding_error(path, encoding: str, exc: UnicodeError, line: int | None = None) -> EncodingError:
    """One line for a decoding failure, naming the encoding that failed and the byte-order mark the
    file starts with; a plain UnicodeError (utf-16 with no BOM) has no offset."""
    where = f"line {line}: " if line is not None else ""
    at = f" at byte offset {exc.start}" if isinstance(exc, UnicodeDecodeError) else ""
    why = getattr(exc, "reason", None) or str(exc)
    bom = bom_of(path)
    if bom == "UTF-8" and _one_byte(encoding):
        # open_text read it as UTF-8 for its mark: the configured encoding never ran, and changing
        # it cannot help (a latin-1 file saved with a stray UTF-8 byte-order mark)
        return EncodingError(f"{path}: {where}not readable as UTF-8{at} ({why}): the file starts with a UTF-8 "
                             f"byte-order mark, so it was read as UTF-8, not as the configured {encoding}, and its "
                             f"other bytes are not UTF-8; remove the mark (its first 3 bytes) to read it as "
                             f"{encoding}, or save the file as UTF-8")
    mark = f"byte-order mark: {bom}" if bom else "no byte-order mark"
    return EncodingError(f"{path}: {where}not readable as {encoding}{at} ({why}; {mark}); {ENCODING_HINT}")


class _Gzip(io.BufferedIOBase):
    """A gzip reader whose truncation or damage is one line naming the file (gzip raises a bare
    EOFError, "Compressed file ended before the end-of-stream marker was reached", with no name)."""

    def __init__(self, path: Path):
        self._path = path
        self._gz = gzip.open(path, "rb")

    def readable(self) -> bool:
        return True

    def _guard(self, read, n):
        try:
            return read(n)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise DataError(f"{self._path}: truncated or damaged gzip file ({exc}); download it again") from None

    def read(self, n=-1):
        return self._guard(self._gz.read, n)

    def read1(self, n=-1):
        return self._guard(self._gz.read1, n)

    def close(self):
        self._gz.close()
        super().close()


def is_gzip(path: str | Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def has_utf8_bom(path: str | Path) -> bool:
    """The file (plain or gzip) starts with the UTF-8 byte-order mark."""
    path = Path(path)
    with (_Gzip(path) if is_gzip(path) else open(path, "rb")) as fh:
        return fh.read(3) == UTF8_BOM


def twin(name: str) -> str:
    """The other spelling of a file name: `x.json` <-> `x.json.gz`."""
    return name[:-3] if name.endswith(".gz") else name + ".gz"


def _stream(path: Path):
    return _Gzip(path) if is_gzip(path) else open(path, "rb")


def _gzip_size(path: Path) -> int | None:
    """The uncompressed size mod 2**32 a gzip file's trailer records (None for a plain file)."""
    if not is_gzip(path):
        return None
    with open(path, "rb") as fh:
        fh.seek(-4, 2)
        return int.from_bytes(fh.read(4), "little")


_SAME: dict[tuple, bool] = {}


def same_content(a: Path, b: Path) -> bool:
    """The two files hold the same bytes once decompressed (the gzip trailer's size first, so a
    differing pair is told apart without reading either whole); remembered per (path, mtime, size)."""
    key = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in (a, b))
    if key not in _SAME:
        sizes = [_gzip_size(p) if is_gzip(p) else p.stat().st_size % 2**32 for p in (a, b)]
        same = sizes[0] == sizes[1]
        if same:
            with _stream(a) as fa, _stream(b) as fb:
                while same:
                    x, y = fa.read(1 << 20), fb.read(1 << 20)
                    same = x == y
                    if not x:
                        break
        _SAME[key] = same
    return _SAME[key]


def check_twins(path: Path) -> None:
    """A file and its `.gz` twin side by side must hold the same data: which one a loader read would
    otherwise decide the results silently."""
    other = path.with_name(twin(path.name))
    if path.exists() and other.exists() and not same_content(path, other):
        raise DataError(f"{path}: its twin {other.name} is also in {path.parent} and holds different data; "
                        f"remove the one that is not the source (lrworld reads {path.name})")


def resolve(folder: str | Path, name: str) -> Path:
    """`folder/name`, or its `.gz` twin when only that exists (the configured name otherwise)."""
    path = Path(folder) / name
    other = Path(folder) / twin(name)
    return other if not path.exists() and other.exists() else path


def require(path: str | Path) -> Path:
    """The file, or its `.gz` twin (or plain twin) where only that exists: every format's loader
    opens files through here, so each finds the twin its rule's inputs declared (formats.inputs)."""
    path = Path(path)
    if path.exists():
        check_twins(path)
        return path
    other = path.with_name(twin(path.name))
    if other.exists():
        return other
    raise DataError(f"{path}: file not found (nor {other.name})")


def open_text(path: str | Path, encoding: str = "utf-8", errors: str = "strict"):
    """A text stream over a plain or gzip file (newlines untranslated: CRLF is stripped by callers)."""
    path = require(path)
    # a UTF-8 BOM would stay glued to the first field (Netflix's movie 1 then reads as a header row);
    # under a one-byte encoding (latin-1, the Netflix default) it also says the file is UTF-8: a
    # spreadsheet's "CSV UTF-8" save, whose accented titles latin-1 would garble
    name = encoding.lower().replace("_", "-")
    if name in ("utf-8", "utf8"):
        encoding = "utf-8-sig"
    elif not name.startswith(("utf", "u16", "u32")) and has_utf8_bom(path):
        log.warning("%s: starts with a UTF-8 byte-order mark: read as UTF-8, not %s", path, encoding)
        encoding = "utf-8-sig"
    if is_gzip(path):
        return io.TextIOWrapper(_Gzip(path), encoding=encoding, errors=errors, newline="")
    return open(path, encoding=encoding, errors=errors, newline="")
