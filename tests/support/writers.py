"""Which process writes which file under a folder, recorded by the processes themselves (a
Python audit hook), so a test can check that no file has two writers.

In a subprocess (a Snakemake run and its jobs): put `SITE_DIR` first on PYTHONPATH with
$LRWORLD_WRITERS_ROOT naming the folder and $LRWORLD_WRITERS_LOG the log; `writers(log)` reads it.
A write is an `open` for writing, creating or appending, a read-write SQLite connection (a
read-only one opens a `file:...?mode=ro` URI), a rename onto the path, or its removal.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SITE_DIR = Path(__file__).resolve().parent / "writers_site"
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _written(event: str, args: tuple):
    if event == "open":
        path, mode, flags = args
        writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & _WRITE_FLAGS)
        return path if writes and isinstance(path, (str, bytes, os.PathLike)) else None
    if event == "os.rename":
        return args[1]
    if event == "os.remove":
        return args[0]
    if event == "sqlite3.connect":
        db = os.fsdecode(args[0])
        return None if db.startswith("file:") and "mode=ro" in db else db
    return None


def install(root: str, log: str) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    root = os.path.abspath(root) + os.sep

    def hook(event: str, args: tuple) -> None:
        path = _written(event, args)
        if path is None or isinstance(path, int):
            return
        path = os.path.abspath(os.fsdecode(path))
        if path.startswith(root):
            os.write(fd, f"{os.getpid()}\t{event}\t{path}\n".encode())

    sys.addaudithook(hook)


def writers(log: Path) -> dict[str, set[int]]:
    """{path: the pids that wrote it}."""
    out: dict[str, set[int]] = {}
    for line in log.read_text().splitlines():
        pid, _, path = line.split("\t")
        out.setdefault(path, set()).add(int(pid))
    return out
