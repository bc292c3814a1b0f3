"""The durable response cache: every answer is stored the moment it arrives, outside Snakemake's
outputs, so a killed or failed job keeps what it finished and a rerun never pays twice.

SQLite (stdlib) in WAL mode gives atomic, crash-safe appends and lets parallel jobs of the same
model share one file; a JSONL append log would need its own locking and torn-line recovery.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from lrworld.core.io import dumps_canonical, sha256_text


def cache_key(identity: dict, prompt: str) -> str:
    return sha256_text(dumps_canonical({"identity": identity, "prompt": prompt}))


# Request fields besides the prompt that change the answer: the images shown (by content) and
# the sample index of repeated runs (SRBench asks the same prompt T times; each run is its own
# entry, so a killed run resumes and a finished one is never re-sampled).
KEYED_FIELDS = ("image_sha256", "sample")


def request_key(identity: dict, request: dict) -> str:
    """The cache key of one request; a plain prompt keeps the key `cache_key` gives it."""
    extra = {k: request[k] for k in KEYED_FIELDS if request.get(k)}
    if not extra:
        return cache_key(identity, request["prompt"])
    return sha256_text(dumps_canonical({"identity": identity, "prompt": request["prompt"], **extra}))


class ResponseCache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, record TEXT NOT NULL)")

    def get_many(self, keys: list[str]) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            rows = self._db.execute(
                f"SELECT key, record FROM responses WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            out.update({k: json.loads(r) for k, r in rows})
        return out

    def put(self, key: str, record: dict) -> None:
        # INSERT OR IGNORE: the first stored answer wins, so a duplicate in-flight answer after a
        # kill cannot replace what an earlier run recorded.
        self._db.execute("INSERT OR IGNORE INTO responses (key, record) VALUES (?, ?)", (key, dumps_canonical(record)))

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self._db.close()
