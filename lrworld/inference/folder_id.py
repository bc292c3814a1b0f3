"""The invocation folder's id: what names its reply-digest records in a cache that several folders
may share (`lrworld.inference.stage.replies_record`).

Kept in `.snakemake/lrworld-folder-id`: the id, the folder's path when the id was written, and the
ids of the folders it was copied from. A folder moved whole keeps its id (its old path is gone). A
folder copied whole, whose original is still there with the same id, takes a new one derived
from that id and its own path, so every job of one invocation derives the same id without a lock,
and two copies run at once on one cache never write one record; it reads its original's records
until it has its own."""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

from lrworld.core import io

ID_FILE = Path(".snakemake") / "lrworld-folder-id"
KEPT_ANCESTORS = 8


def folder_lineage() -> list[str]:
    """[the current folder's id, then the ids of the folders it was copied from, nearest first]."""
    here = str(Path.cwd().resolve())
    try:
        own, made_in, ancestors = _read(ID_FILE)
    except FileNotFoundError:
        return [_new(ID_FILE, here)]
    if not own:
        return [_new(ID_FILE, here)]
    if made_in != here:
        if made_in and _read_id(Path(made_in) / ID_FILE) == own:  # the original is still there: a copy
            own, ancestors = hashlib.sha256(f"{own}\n{here}".encode()).hexdigest()[:12], [own, *ancestors]
        io.write_text(ID_FILE, "".join(f"{line}\n" for line in (own, here, " ".join(ancestors[:KEPT_ANCESTORS]))))
    return [own, *ancestors]


def _read(path: Path) -> tuple[str, str, list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines() + ["", "", ""]
    return lines[0].strip()[:32], lines[1].strip(), lines[2].split()


def _read_id(path: Path) -> str | None:
    try:
        return _read(path)[0]
    except (OSError, UnicodeDecodeError):
        return None


def _new(path: Path, here: str) -> str:
    """A fresh id, linked into place whole: the first process to make it wins, the others read it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = secrets.token_hex(6)
    tmp = path.with_name(f".{path.name}.{fresh}.tmp")
    tmp.write_text(f"{fresh}\n{here}\n\n", encoding="utf-8")
    try:
        os.link(tmp, path)
        return fresh
    except FileExistsError:
        return _read(path)[0]
    finally:
        tmp.unlink(missing_ok=True)
