"""The durable response cache: every answer is stored the moment it arrives, outside Snakemake's
outputs, so a killed or failed job keeps what it finished and a rerun never pays twice.

SQLite (stdlib) gives atomic, crash-safe appends; a JSONL append log would need its own torn-line
recovery. Each file has one writer (lrworld/inference/shards.py: one shard per answer-job
process) and uses the rollback journal (journal_mode=DELETE), not WAL: WAL needs every process on
one host and does not work over a network file system. Other processes open a shard read-only.

Only real answers are stored (`store_answer`): an empty reply would otherwise be a final missed
answer that no rerun asks again. Each row also records its model identity, so `lrworld cache`
can list and purge entries by identity.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from lrworld.core import disk
from lrworld.core.io import dumps_canonical, sha256_text


class CacheError(RuntimeError):
    """A cache file or folder that cannot be used; the message names it and says what to do."""


class ShardInUse(CacheError):
    """Another process's shard that cannot be read now: mid-write (locked) or left with a hot
    journal by a killed process (`hot_journal`), which only a writer of the file may roll back."""

    def __init__(self, message: str, hot_journal: bool = False):
        super().__init__(message)
        self.hot_journal = hot_journal


# SQLite's codes for a file being written, or a killed writer's journal a read-only reader may not roll back
HOT_JOURNAL = ("SQLITE_READONLY_ROLLBACK", "SQLITE_READONLY_RECOVERY")
IN_USE = ("SQLITE_BUSY", "SQLITE_LOCKED", *HOT_JOURNAL)


class NotAnAnswer(RuntimeError):
    """A backend returned something that is not an answer; it is not cached."""


def cache_key(identity: dict, prompt: str) -> str:
    return sha256_text(dumps_canonical({"identity": identity, "prompt": prompt}))


# Request fields besides the prompt that change the answer: the images shown (by content) and
# the sample index of repeated runs (SRBench asks the same prompt T times; each run is its own
# entry, so a killed run resumes and a finished one is never re-sampled), and the items whose
# behavioural embeddings fill a LLaRA hybrid prompt's placeholders (two items may share a title).
KEYED_FIELDS = ("image_sha256", "sample", "history_items", "candidate_items")


def request_key(identity: dict, request: dict) -> str:
    """The cache key of one request; a plain prompt keeps the key `cache_key` gives it. A backend
    that reads request fields besides these (a shortcut answerer's `option_signals`) names them in
    its identity's `request_fields`, so they key its answers and no other model's."""
    fields = (*KEYED_FIELDS, *identity.get("request_fields", ()))
    extra = {k: request[k] for k in fields if request.get(k)}
    if not extra:
        return cache_key(identity, request["prompt"])
    return sha256_text(dumps_canonical({"identity": identity, "prompt": request["prompt"], **extra}))
def identity_key(identity: dict) -> str:
    return sha256_text(dumps_canonical(identity))


def why_not_an_answer(record: dict) -> str | None:
    """None for a real answer: text, a refusal the API flagged, or label log-probabilities, or the
    empty output of a local model that ended on end-of-sequence (greedy decoding: asking again
    gives the same). Otherwise what is wrong with it."""
    extra = record.get("extra") or {}
    if extra.get("refusal"):
        return None
    if any(lp is not None for lp in record.get("label_logprobs") or ()):
        return None
    text = record.get("raw_text")
    if isinstance(text, str) and text.strip():
        return None
    if text == "" and extra.get("finish_reason") == "eos":
        return None
    finish = extra.get("finish_reason")
    return f"empty answer (raw_text={text!r}{f', finish_reason={finish!r}' if finish else ''})"


# the answer job's open Batch API batches live in its own shard (lrworld/models/batch_api.py)
BATCH_TABLES = ("batches", "batch_requests")


def _describe(exc: sqlite3.Error) -> str:
    return f"{type(exc).__name__}: {exc}"


class ResponseCache:
    def __init__(self, path: str | Path, create: bool = True, readonly: bool = False):
        """create=False (`lrworld cache`): only an existing response cache is opened; a file
        without lrworld's `responses (key, record)` table is refused untouched, no table is added.
        readonly=True: another process's shard, read and never written (nor its journal rolled
        back); its handle may be used and closed from any one thread at a time."""
        self.path = Path(path)
        if readonly:
            try:
                self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=60, isolation_level=None,
                                           check_same_thread=False)
                self._require_cache()
                self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
            except sqlite3.DatabaseError as exc:
                name = getattr(exc, "sqlite_errorname", "")
                if name.startswith(IN_USE):
                    raise ShardInUse(f"{self.path}: not a readable response cache ({_describe(exc)})",
                                     hot_journal=name.startswith(HOT_JOURNAL)) from None
                raise CacheError(f"{self.path}: not a usable response cache ({_describe(exc)}); move it away "
                                 f"or delete it, and its answers will be asked again") from None
            return
        folder = self.path.parent
        existing = next(p for p in [folder, *folder.parents] if p.exists())
        if not existing.is_dir():
            raise CacheError(f"cache_dir: {existing} is a file, not a folder; set cache_dir to a folder")
        folder.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            if not create:
                self._require_cache()
            self._db.execute("PRAGMA journal_mode=DELETE")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, record TEXT NOT NULL)")
            self._db.execute("CREATE TABLE IF NOT EXISTS identities (id TEXT PRIMARY KEY, identity TEXT NOT NULL)")
            cols = [r[1] for r in self._db.execute("PRAGMA table_info(responses)")]
            if "identity" not in cols:  # caches written before identities were recorded
                self._db.execute("ALTER TABLE responses ADD COLUMN identity TEXT")
            self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or disk.is_full(exc):
                raise CacheError(disk.full_message(folder, exc)) from None
            raise CacheError(f"{self.path}: not a usable response cache ({_describe(exc)}); move it away "
                             f"or delete it, and its answers will be asked again") from None

    def _require_cache(self) -> None:
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        cols = {r[1] for r in self._db.execute("PRAGMA table_info(responses)")} if "responses" in tables else set()
        if not {"key", "record"} <= cols or not tables <= {"responses", "identities", *BATCH_TABLES}:
            self._db.close()
            raise CacheError(f"{self.path}: not an lrworld response cache (tables: {', '.join(sorted(tables)) or 'none'}); "
                             f"left untouched")

    def get_many(self, keys: list[str]) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            rows = self._execute(
                f"SELECT key, record FROM responses WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            out.update({k: json.loads(r) for k, r in rows})
        return out

    def put(self, key: str, record: dict, identity: dict | None = None) -> None:
        # INSERT OR IGNORE: the first stored answer wins, so a duplicate in-flight answer after a
        # kill cannot replace what an earlier run recorded.
        ident = None
        if identity is not None:
            ident = identity_key(identity)
            self._execute("INSERT OR IGNORE INTO identities (id, identity) VALUES (?, ?)",
                          (ident, dumps_canonical(identity)))
        self._execute("INSERT OR IGNORE INTO responses (key, record, identity) VALUES (?, ?, ?)",
                      (key, dumps_canonical(record), ident))

    def store_answer(self, key: str, record: dict, identity: dict, model: str) -> None:
        """`put`, for real answers only: anything else raises NotAnAnswer naming the model, so the
        job fails and a rerun asks again instead of scoring a stored non-answer forever."""
        why = why_not_an_answer(record)
        if why:
            raise NotAnAnswer(f"models.{model} (model {identity.get('model')!r}): {why}; not cached. "
                              f"Check the model or server and rerun")
        self.put(key, record, identity)

    # -- inspection and purge (`lrworld cache`) ---------------------------------------------------
    def summary(self) -> dict:
        """Entries, size on disk and entries per identity (None: rows from before identities)."""
        per = self._execute("SELECT r.identity, i.identity, COUNT(*) FROM responses r LEFT JOIN identities i "
                            "ON r.identity = i.id GROUP BY r.identity").fetchall()
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return {"path": str(self.path), "entries": len(self), "bytes": size,
                "identities": [{"id": k, "identity": json.loads(v) if v else None, "entries": n}
                               for k, v, n in sorted(per, key=lambda r: (r[0] or ""))]}

    def purge(self, identity_prefix: str | None = None) -> int:
        """Delete every entry, or those whose identity id starts with `identity_prefix`; returns
        how many. An ambiguous prefix is refused."""
        if identity_prefix is None:
            n = len(self)
            self._execute("DELETE FROM responses")
            self._execute("DELETE FROM identities")
        else:
            if not re.fullmatch(r"[0-9a-f]+", identity_prefix):
                raise CacheError(f"{self.path}: --identity {identity_prefix!r} is not an identity id or prefix "
                                 f"(hex digits, from `lrworld cache list`)")
            ids = [r[0] for r in self._execute("SELECT id FROM identities WHERE id LIKE ?", (identity_prefix + "%",))]
            if len(ids) != 1:
                raise CacheError(f"{self.path}: identity {identity_prefix!r} matches {len(ids)} identities; "
                                 f"`lrworld cache list` shows them")
            n = self._execute("SELECT COUNT(*) FROM responses WHERE identity = ?", ids).fetchone()[0]
            self._execute("DELETE FROM responses WHERE identity = ?", ids)
            self._execute("DELETE FROM identities WHERE id = ?", ids)
        self._execute("VACUUM")
        return n

    def _execute(self, sql: str, args=()):
        try:
            return self._db.execute(sql, args)
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or disk.is_full(exc):
                # the write rolled back: the file holds every answer stored before it
                raise CacheError(disk.full_message(self.path.parent, exc)) from None
            raise CacheError(f"{self.path}: not a usable response cache ({_describe(exc)}); move it away "
                             f"or delete it, and its answers will be asked again") from None

    def __len__(self) -> int:
        return self._execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def holds_nothing(self) -> bool:
        """No answer and no Batch API batch: a file nothing would be lost with."""
        tables = {r[0] for r in self._execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return len(self) == 0 and not any(
            self._execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() for t in BATCH_TABLES if t in tables)

    def close(self) -> None:
        self._db.close()
