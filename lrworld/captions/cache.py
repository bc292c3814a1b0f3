"""Captions cached by (image sha256, captioner identity): a rerun, or another dataset with the same
image, never asks the model again; a new model or a new instruction asks again."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path


def identity_key(identity: dict) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


class CaptionCache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS captions (image_sha256 TEXT, captioner TEXT, caption TEXT, "
                         "identity TEXT, created REAL, PRIMARY KEY (image_sha256, captioner))")
        self._db.commit()

    def get(self, image_sha: str, captioner_key: str) -> str | None:
        row = self._db.execute("SELECT caption FROM captions WHERE image_sha256=? AND captioner=?",
                               (image_sha, captioner_key)).fetchone()
        return row[0] if row else None

    def put(self, image_sha: str, captioner_key: str, caption: str, identity: dict) -> None:
        # committed one by one: a killed job keeps every caption it already paid for
        self._db.execute("INSERT OR REPLACE INTO captions VALUES (?, ?, ?, ?, ?)",
                         (image_sha, captioner_key, caption, json.dumps(identity, sort_keys=True), time.time()))
        self._db.commit()

    def close(self) -> None:
        self._db.close()
