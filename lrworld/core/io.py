"""Atomic, deterministic file writes and hashing.

Every artifact is written to a temporary file in the same folder and renamed into place, so a
killed job never leaves a half-written file that a rerun would trust; the next job to write into
that folder removes the temporary the killed one left.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import re
import secrets
import stat
import time
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator


# A temporary of atomic_path: `.<name>.<12 hex>.tmp` beside its artifact.
_TEMP = re.compile(r"\..+\.[0-9a-f]{12}\.tmp")
_STARTED = time.time()  # about when this job started: a temporary older than that is not its own
_SWEPT: set[str] = set()


def _hold(fd: int) -> None:
    """Mark a temporary as being written: an flock on it lives exactly as long as its writer (a
    killed one drops it), which is how sweep_temps tells debris from a live write. Where the file
    system has no locks the temporary is never swept, which is safe."""
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _abandoned(path: str) -> bool:
    """Whether the temporary at `path` is debris: older than this job and unlocked. It is
    removed while the lock is held, so no writer can be in the middle of it. Opened read-only (an
    flock needs no write access): looking at another process's live write never writes to it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_mtime >= _STARTED:
            return False
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.unlink(path)
        return True
    except OSError:  # locked by its live writer (another job), or already gone
        return False
    finally:
        os.close(fd)


def sweep_temps(folder: str | os.PathLike) -> list[str]:
    """Remove the temporaries that killed atomic writes left in `folder` (`.<name>.<hex>.tmp`):
    only those older than this job whose writer is gone (no lock on them), so a concurrent job's
    write in progress is kept. Returns the names removed."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [n for n in names if _TEMP.fullmatch(n) and _abandoned(os.path.join(folder, n))]


def _new_temp(path: Path) -> tuple[str, int]:
    """An empty new file beside `path`, created 0666 minus the umask (mkstemp would make it 0600,
    and the rename would carry that onto the artifact: a group could not read shared results),
    and its open descriptor, locked while the write lasts."""
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        _hold(fd)
        return tmp, fd
    raise FileExistsError(f"{path.parent}: no free temporary name for {path.name}")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it onto `path` only if the block succeeds.
    The artifact's mode follows the umask, like a plain open(). The first write of a job into a
    folder also removes what killed writes left there (sweep_temps), so a resumed job leaves
    none."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if str(path.parent) not in _SWEPT:
        _SWEPT.add(str(path.parent))
        sweep_temps(path.parent)
    tmp, fd = _new_temp(path)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    finally:
        os.close(fd)
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())


def json_safe(obj: Any) -> Any:
    """`obj` with every NaN or infinite float as None: a missing value is null in JSON (NaN and
    Infinity are not JSON; readers in other languages reject them)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def dumps_canonical(obj: Any) -> str:
    """JSON with sorted keys and no locale-dependent formatting: identical input, identical bytes."""
    return json.dumps(json_safe(obj), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def write_json(path: str | os.PathLike, obj: Any) -> None:
    # NaN/Infinity are not JSON: written as null (a missing value); allow_nan=False is the backstop
    write_text(path, json.dumps(json_safe(obj), sort_keys=True, ensure_ascii=False, indent=2, allow_nan=False) + "\n")


def write_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> int:
    n = 0
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for rec in records:
                fh.write(dumps_canonical(rec) + "\n")
                n += 1
            fh.flush()
            os.fsync(fh.fileno())
    return n


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
    return out


def read_json(path: str | os.PathLike) -> Any:
    with open_file(path) as fh:
        return json.loads(fh.read().decode("utf-8"))


def write_parquet(path: str | os.PathLike, df) -> None:
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)


class NotAFileError(OSError):
    """A path lrworld was to read is not a regular file (one line naming it)."""

    def __init__(self, path, what: str):
        super().__init__(f"{path}: {what}, not a regular file (lrworld reads only regular files)")


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"))


def _kind(mode: int) -> str | None:
    return None if stat.S_ISREG(mode) else next((what for test, what in _KINDS if test(mode)), "not a file")


def not_a_file(path: str | os.PathLike, follow_links: bool = True) -> str | None:
    """What `path` is when it is not a regular file lrworld may read ("a FIFO", "a character
    device", ...; "missing"), or None. The one check for every file lrworld hashes or reads from
    outside its own outputs: a FIFO blocks its reader forever, a device such as /dev/zero never
    ends. `follow_links=False` refuses a symbolic link too (a release names only plain files)."""
    try:
        st = os.stat(path, follow_symlinks=follow_links)
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    return _kind(st.st_mode)


def refuse_not_a_file(path: str | os.PathLike, follow_links: bool = True) -> None:
    """NotAFileError naming `path` unless it is a regular file (or missing: left to the reader)."""
    what = not_a_file(path, follow_links)
    if what not in (None, "missing"):
        raise NotAFileError(path, what)


def open_file(path: str | os.PathLike) -> BinaryIO:
    """`path` opened for reading in binary, or NotAFileError naming it when it is not a regular
    file; never blocks: the open is non-blocking (a FIFO's would wait for a writer) and the file
    opened is checked too (replaced between the check and the open)."""
    refuse_not_a_file(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        what = _kind(os.fstat(fd).st_mode)
        if what:
            raise NotAFileError(path, what)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """sha256 of a regular file's bytes (NotAFileError naming anything else: see open_file)."""
    h = hashlib.sha256()
    with open_file(path) as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
