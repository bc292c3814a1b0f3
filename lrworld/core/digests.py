"""Content digests of files the graph reads but no rule of it writes (local `path:` sources,
wherever they lie, metadata files, release folders, local model folders, a track's local data): a
rule carries them as params, so replacing a file's bytes re-runs what reads it even when the copy
kept an older mtime (`cp -p`, `unzip`, `tar x`), which Snakemake's mtime check alone would miss.

Hashing is skipped while a file's (size, mtime, ctime, inode) is unchanged; ctime cannot be set
back by a copy, so any replacement is re-hashed. The fast-path table lives in the working
directory's `.snakemake/lrworld/digests.json`, keyed by paths relative to the working directory
(a moved build keeps its table), and nothing is written beside the files hashed: a model folder
may be an installed package.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from lrworld.core.io import sha256_file, sha256_text, write_json

STORE = Path(".snakemake/lrworld/digests.json")


def _stamp(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


class DigestStore:
    def __init__(self, path: str | Path = STORE, min_bytes: int = 0):
        """`min_bytes`: smaller files are hashed each time and not stored (a caller that meets
        thousands of small outputs keeps the table to the files worth it)."""
        self.path = Path(path)
        self.min_bytes = min_bytes
        try:
            self._table = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            self._table = {}
        self._dirty = False

    def sha256(self, file: str | Path) -> str:
        """sha256 of a file's bytes; a missing file is left to Snakemake's own missing-input error."""
        p = Path(file)
        if p.is_dir():  # a folder (posters, a shard directory): the digest of its files' digests
            parts = [f"{f.relative_to(p).as_posix()}:{self.sha256(f)}" for f in sorted(p.rglob("*")) if f.is_file()]
            return sha256_text("\n".join(parts))
        try:
            st = p.stat()
        except FileNotFoundError:
            return "missing"
        if st.st_size < self.min_bytes:
            return sha256_file(p)
        key = os.path.relpath(os.path.abspath(p))
        hit = self._table.get(key)
        if hit and hit["stamp"] == _stamp(st):
            return hit["sha256"]
        digest = sha256_file(p)
        self._table[key] = {"stamp": _stamp(st), "sha256": digest}
        self._dirty = True
        return digest

    def of(self, files, skip=None) -> dict[str, str]:
        """{file: sha256} of files the graph does not write: by default those outside results/;
        with `skip` (the graph's own outputs among them), every file but those, so a `path:`
        source or a release folder under results/ is read by content too."""
        own = (lambda f: str(f).startswith("results/")) if skip is None else (lambda f: str(f) in skip)
        out = {str(f): self.sha256(f) for f in files if not own(f)}
        self.save()
        return out

    def save(self) -> None:
        """Write the fast-path table if a digest was added. Jobs that save at once lose only each
        other's new entries (each write is atomic): those files are hashed again next time."""
        if self._dirty:
            try:
                write_json(self.path, self._table)
                self._dirty = False
            except OSError:  # a read-only working directory: hash again next time
                pass
