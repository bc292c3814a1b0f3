"""The Batch API path of the `openai` backend (`batch: true`): a job's uncached prompts go to the
provider as one JSONL file of chat-completion requests (files + batches endpoints; half the price
at OpenAI, results within the 24 h completion window).

- Each request's `custom_id` is a digest of its body, so the same prompt with the same decoding
  parameters is the same request in every run.
- Which request went into which batch is written to SQLite (`BatchStore`, tables in the response
  cache's file) the moment the batch is created, so a killed job re-attaches to its open batches
  on rerun and submits only requests that are in none: each prompt is billed once.
- Before submitting, the store is reconciled with the provider by request `custom_id` wherever
  they disagree (a stored batch the provider does not know, requests the store places in no open
  batch, no store at all): a request an open or completed batch of the model holds at the
  provider is re-attached, never submitted or asked again, with a WARNING naming the batch.
- Status polls back off from `batch_poll_s` by 1.5x per poll up to `batch_poll_max_s`.
- Results are yielded as (index, Response) like the online path, so the caller caches each at once.
  Lines that failed (in the error file, a non-200 status, a body that is not a chat completion,
  missing after an expired, failed or cancelled batch) go through the normal online path with its
  retries.

Kept apart from backends/openai.py: it shares the request and response shapes (`request_body`,
`to_response`, the `ChatBackend` protocol below) and nothing else, and never imports the backend.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from pathlib import Path
from typing import Iterator, Protocol, Sequence

from lrworld.core.io import dumps_canonical, sha256_text
from lrworld.models.base import PromptItem, Response
from lrworld.models.retry import BackendError


class ChatBackend(Protocol):
    """What this module uses of a chat-completions backend (`lrworld.models.backends.openai`)."""

    name: str
    base_url: str | None
    timeout_s: float
    policy: object  # its max_retries
    batch_store: str | None
    batch_poll_s: float
    batch_poll_max_s: float

    def resolved_api_key(self) -> str: ...

    def request_body(self, item: PromptItem) -> dict: ...

    def to_response(self, item: PromptItem, completion, latency: float | None, attempts: int) -> Response: ...

    def online_iter(self, items: Sequence[PromptItem]) -> Iterator[tuple[int, Response]]: ...

log = logging.getLogger(__name__)

ENDPOINT = "/v1/chat/completions"
MAX_REQUESTS = 50_000  # OpenAI's limit on requests per batch file
TERMINAL = {"completed", "failed", "expired", "cancelled"}
_sleep = time.sleep  # replaced in tests


class BatchStore:
    """Open batches and the requests in each, durable across killed jobs."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=DELETE")  # one writer per file; safe on NFS
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS batches (batch_id TEXT PRIMARY KEY, model TEXT NOT NULL, "
                         "submitted REAL NOT NULL, requests INTEGER NOT NULL, status TEXT NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS batch_requests (custom_id TEXT NOT NULL, batch_id TEXT NOT NULL, "
                         "PRIMARY KEY (custom_id, batch_id))")

    def open_batches(self, custom_ids: Sequence[str]) -> dict[str, str]:
        """{custom_id: batch_id} for the requests already in a batch not yet consumed."""
        out: dict[str, str] = {}
        for start in range(0, len(custom_ids), 500):
            chunk = list(custom_ids[start:start + 500])
            rows = self._db.execute(
                "SELECT r.custom_id, r.batch_id FROM batch_requests r JOIN batches b USING (batch_id) "
                f"WHERE b.status = 'open' AND r.custom_id IN ({','.join('?' * len(chunk))}) ORDER BY b.submitted",
                chunk)
            out.update(dict(rows))
        return out

    def record(self, batch_id: str, model: str, custom_ids: Sequence[str]) -> None:
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("INSERT INTO batches VALUES (?, ?, ?, ?, 'open')", (batch_id, model, time.time(), len(custom_ids)))
            self._db.executemany("INSERT OR IGNORE INTO batch_requests VALUES (?, ?)", [(c, batch_id) for c in custom_ids])

    def reattach(self, batch_id: str, model: str, custom_ids: Sequence[str]) -> None:
        """Record a batch found at the provider as open, with all its requests."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("INSERT INTO batches VALUES (?, ?, ?, ?, 'open') ON CONFLICT (batch_id) DO UPDATE "
                             "SET status = 'open'", (batch_id, model, time.time(), len(custom_ids)))
            self._db.executemany("INSERT OR IGNORE INTO batch_requests VALUES (?, ?)", [(c, batch_id) for c in custom_ids])

    def placed(self, custom_id: str, batch_id: str) -> bool:
        """Whether the store records the request in that batch (open, or consumed: then its answer
        was read, and asking it again is meant)."""
        return self._db.execute("SELECT 1 FROM batch_requests WHERE custom_id = ? AND batch_id = ?",
                                (custom_id, batch_id)).fetchone() is not None

    def consumed(self, batch_id: str, status: str) -> None:
        self._db.execute("UPDATE batches SET status = ? WHERE batch_id = ?", (f"consumed:{status}", batch_id))

    def close(self) -> None:
        self._db.close()


def custom_id(body: dict) -> str:
    return sha256_text(dumps_canonical(body))[:32]


def answer_iter(backend: ChatBackend, items: Sequence[PromptItem]) -> Iterator[tuple[int, Response]]:
    items = list(items)
    if not items:
        return
    if not backend.batch_store:
        raise BackendError(f"models.{backend.name}: batch: true needs a batch store (the answer job sets "
                           f"batch_store to the response cache's file)")
    api_key = backend.resolved_api_key()
    from openai import OpenAI

    client = OpenAI(api_key=api_key, base_url=backend.base_url or None, timeout=backend.timeout_s,
                    max_retries=backend.policy.max_retries)
    store = BatchStore(backend.batch_store)
    try:
        bodies = {}
        where: dict[str, list[int]] = {}
        for i, item in enumerate(items):
            body = backend.request_body(item)
            cid = custom_id(body)
            bodies[cid] = body
            where.setdefault(cid, []).append(i)
        batch_of = _confirmed(client, store, backend, store.open_batches(list(where)))  # {custom_id: batch_id}
        new = [c for c in where if c not in batch_of]
        if new:
            batch_of.update(_adopt(client, store, backend, set(new)))
            new = [c for c in where if c not in batch_of]
        if batch_of:
            log.info("models.%s: %d requests re-attached to %d open batches", backend.name, len(batch_of),
                     len(set(batch_of.values())))
        for start in range(0, len(new), MAX_REQUESTS):
            chunk = new[start:start + MAX_REQUESTS]
            batch_id = _submit(client, store, backend, [(c, bodies[c]) for c in chunk])
            batch_of.update(dict.fromkeys(chunk, batch_id))
        corrupt: list[str] = []
        for batch_id, status, lines, bad in _finished(client, backend, set(batch_of.values())):
            members = {c for c, b in batch_of.items() if b == batch_id}
            answered = set()
            for line in lines:
                cid = line.get("custom_id")
                completion = _completion(line) if cid in members and cid not in answered else None
                if completion is None:
                    continue
                answered.add(cid)
                for i in where[cid]:
                    resp = backend.to_response(items[i], completion, None, 1)
                    resp.extra["batch_id"] = batch_id
                    yield i, resp
            missed = [i for c in sorted(members - answered) for i in where[c]]
            if bad:
                # which request a cut line held is unknown: the unanswered ones are left uncached
                # (a rerun submits them again) rather than asked online behind a corrupt file
                corrupt += bad
                store.consumed(batch_id, f"{status}:corrupt")
                continue
            if missed:
                log.warning("models.%s: batch %s (%s): %d of %d requests failed; asking them directly",
                            backend.name, batch_id, status, len(members - answered), len(members))
            yield from _online(backend, items, missed)
            store.consumed(batch_id, status)
        if corrupt:
            raise BackendError(f"models.{backend.name}: {corrupt[0]}"
                               + (f" (and {len(corrupt) - 1} more lines)" if len(corrupt) > 1 else "")
                               + "; the good lines are cached, rerun to ask the rest again")
    finally:
        client.close()
        store.close()


def _online(backend: ChatBackend, items: list[PromptItem], indices: list[int]) -> Iterator[tuple[int, Response]]:
    if not indices:
        return
    for j, resp in backend.online_iter([items[i] for i in indices]):
        yield indices[j], resp


def _submit(client, store: BatchStore, backend: ChatBackend, requests: list[tuple[str, dict]]) -> str:
    jsonl = "".join(json.dumps({"custom_id": c, "method": "POST", "url": ENDPOINT, "body": b}, ensure_ascii=False) + "\n"
                    for c, b in requests)
    upload = client.files.create(file=("lrworld-batch.jsonl", jsonl.encode("utf-8")), purpose="batch")
    batch = client.batches.create(input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h",
                                  metadata={"lrworld_model": backend.name[:512]})
    # recorded at once: a job killed from here on re-attaches instead of paying again
    store.record(batch.id, backend.name, [c for c, _ in requests])
    log.info("models.%s: submitted batch %s (%d requests, file %s)", backend.name, batch.id, len(requests), upload.id)
    return batch.id


def _confirmed(client, store: BatchStore, backend: ChatBackend, batch_of: dict[str, str]) -> dict[str, str]:
    """batch_of without the stored batches the provider does not know (an id edited in the local
    store, a batch deleted at the provider): their requests are looked up in its listing again."""
    import openai

    for batch_id in sorted(set(batch_of.values())):
        try:
            client.batches.retrieve(batch_id)
        except openai.NotFoundError:
            held = [c for c, b in batch_of.items() if b == batch_id]
            log.warning("models.%s: batch %s of the local store %s is unknown to the provider: its %d requests "
                        "are looked up in the provider's batches", backend.name, batch_id, store.path, len(held))
            store.consumed(batch_id, "missing")
            batch_of = {c: b for c, b in batch_of.items() if b != batch_id}
    return batch_of


def _adopt(client, store: BatchStore, backend: ChatBackend, wanted: set[str]) -> dict[str, str]:
    """{custom_id: batch_id} of requests an open or completed batch of the model holds at the
    provider where the local store does not place them (its file lost or deleted, its rows or
    batch ids edited): found by the metadata _submit attaches and the batch's input file,
    recorded, and re-attached, so lost local state does not bill twice. A request the store
    places in that batch already was consumed from it: asked again on purpose, it is left to submit."""
    found: dict[str, str] = {}
    for batch in client.batches.list(limit=100):
        meta = getattr(batch, "metadata", None) or {}
        if meta.get("lrworld_model") != backend.name[:512] or batch.status in ("failed", "expired", "cancelled"):
            continue
        text = client.files.content(batch.input_file_id).text
        ids = [json.loads(x).get("custom_id") for x in text.splitlines() if x.strip()]
        hit = [c for c in ids if c in wanted and c not in found and not store.placed(c, batch.id)]
        if hit:
            store.reattach(batch.id, backend.name, ids)
            found.update(dict.fromkeys(hit, batch.id))
            log.warning("models.%s: batch %s at the provider holds %d of these requests but was not in the "
                        "local store %s for them (a new job's store, or lost or edited): re-attached, not "
                        "submitted again",
                        backend.name, batch.id, len(hit), store.path)
    return found


def _finished(client, backend: ChatBackend, pending: set[str]) -> Iterator[tuple[str, str, list[dict], list[str]]]:
    """(batch id, final status, output and error lines, unparseable lines named by file and line
    number) for each batch as it reaches a final status."""
    import openai

    delay = backend.batch_poll_s
    last: dict[str, str] = {}
    while pending:
        for batch_id in sorted(pending):
            try:
                batch = client.batches.retrieve(batch_id)
            except openai.NotFoundError:  # deleted at the provider: its requests go the online way
                log.warning("models.%s: batch %s is unknown to the provider", backend.name, batch_id)
                pending.discard(batch_id)
                yield batch_id, "missing", [], []
                continue
            counts = getattr(batch, "request_counts", None)
            if last.get(batch_id) != batch.status:
                log.info("models.%s: batch %s %s (%s)", backend.name, batch_id, batch.status,
                         f"{counts.completed}/{counts.total} done, {counts.failed} failed" if counts else "no counts")
                last[batch_id] = batch.status
            if batch.status in TERMINAL:
                pending.discard(batch_id)
                lines, bad = [], []
                for file_id in (batch.output_file_id, batch.error_file_id):
                    if file_id:
                        text = client.files.content(file_id).text
                        for lineno, x in enumerate(text.splitlines(), 1):
                            if not x.strip():
                                continue
                            try:
                                lines.append(json.loads(x))
                            except json.JSONDecodeError as exc:
                                bad.append(f"batch {batch_id} file {file_id} line {lineno}: not valid JSON ({exc.msg})")
                yield batch_id, batch.status, lines, bad
        if pending:
            _sleep(delay)
            delay = min(delay * 1.5, backend.batch_poll_max_s)


def _completion(line: dict):
    """The chat completion of a successful output line, else None (it goes the online way)."""
    from openai.types.chat import ChatCompletion

    response = line.get("response") or {}
    if line.get("error") or response.get("status_code") != 200:
        return None
    try:
        completion = ChatCompletion.model_validate(response.get("body") or {})
    except ValueError:
        return None
    return completion if completion.choices else None
