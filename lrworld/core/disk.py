"""A file system that refuses a write (full, over quota, past a file-size limit, read-only) named
in one line with the folder, instead of a traceback from inside a library."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}
# libraries that report the C library's error only in their message (pyarrow, SQLite)
FULL_TEXT = ("No space left on device", "Disk quota exceeded", "File too large", "database or disk is full")


def is_full(exc: BaseException) -> bool:
    return (isinstance(exc, OSError) and exc.errno in FULL) or any(t in str(exc) for t in FULL_TEXT)


def full_message(folder: str | os.PathLike, exc: BaseException) -> str:
    return (f"{folder}: the file system is full (or past its quota or file-size limit: {exc}); nothing "
            f"half-written was kept: free space and rerun, what finished is kept")


def job_message(exc: BaseException, outputs=()) -> str | None:
    """One line for a job that failed writing, naming the folder: the file the error names, else
    the job's first output's. None for any other error."""
    if not is_full(exc) and not (isinstance(exc, OSError) and exc.errno == errno.EROFS):
        return None
    name = getattr(exc, "filename", None) or next(iter(outputs), None)
    folder = Path(name).parent if name else Path.cwd()
    if isinstance(exc, OSError) and exc.errno == errno.EROFS:
        return f"{folder}: read-only file system ({exc}); make it writable and rerun"
    return full_message(folder, exc)


def writable(folder: str | os.PathLike) -> str | None:
    """None if a file can be created in `folder` (or the nearest existing folder above it), else
    one line naming it. Tried by creating one: permission bits say nothing on a read-only mount,
    nor to root."""
    folder = Path(folder)
    existing = next((p for p in [folder, *folder.parents] if p.exists()), Path("."))
    try:
        fd, probe = tempfile.mkstemp(prefix=".lrworld-write-probe-", dir=existing)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        why = "read-only" if exc.errno in READ_ONLY else ("full" if is_full(exc) else exc.strerror)
        return f"{existing.resolve()}: not writable ({why}: {exc.strerror}); the run writes {folder} there"
    return None
