"""A model's response cache as shards: one SQLite file per answer-job process, so that no two
processes that may run at once (jobs on different nodes of a cluster, two invocations in two
folders sharing one `cache_dir`, over a network file system) ever write one file.

    <cache_dir>/responses/<model>/<track>/<scope>.<writer>.sqlite   written by one answer-job process only
    <cache_dir>/responses/<model>/<track>/<scope>.sqlite            a shard from before writer names: read only
    <cache_dir>/<model>.sqlite                                      a single-file cache from before shards: read only

`<writer>` (`writer_id`) is the shard's creation time, host and pid, and a random part. Lookups
read every shard, so an answer any process stored is never asked again. Where two shards hold an
answer to one key (two processes asked the same prompt at once), the oldest shard's answer wins
for every reader: the pre-shard file, the shards without a writer name, then by creation time, so
a newer shard never changes an answer a reader has already seen.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import socket
import time
from pathlib import Path

from lrworld.inference.cache import CacheError, ResponseCache, ShardInUse

log = logging.getLogger(__name__)

SHARDS = "responses"
# <scope>.<creation time ns, 16 hex digits>-<host>-<pid>-<random>.sqlite
WRITER = re.compile(r"\.(?P<time>[0-9a-f]{16})-(?P<host>[A-Za-z0-9_-]+)-(?P<pid>[0-9]+)-[0-9a-f]{6}\.sqlite$")


def model_folder(cache_dir: str | Path, model: str) -> Path:
    return Path(cache_dir) / SHARDS / model


def legacy_file(cache_dir: str | Path, model: str) -> Path:
    return Path(cache_dir) / f"{model}.sqlite"


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname())[:64] or "host"


def writer_id() -> str:
    """What makes this process's shard its own among every process that may share the cache at
    once: host and pid, and a random part (two containers may share both); led by the creation
    time, so shard names sort oldest first."""
    return f"{time.time_ns():016x}-{_host()}-{os.getpid()}-{secrets.token_hex(3)}"


def shard_file(cache_dir: str | Path, model: str, track: str, scope: str, writer: str) -> Path:
    """The one file the answer-job process `writer` of (track, scope, model) writes."""
    return model_folder(cache_dir, model) / track / f"{scope}.{writer}.sqlite"


def written_files(cache_dir: str | Path, track: str, scope: str, model: str, writer: str) -> list[Path]:
    """Every file under cache_dir the answer-job process `writer` of (track, scope, model) writes:
    its shard (answers and open Batch API batches). No other process writes it. (Its reply digests
    are keyed by the invocation's folder: `lrworld.inference.stage.replies_record`.)"""
    return [shard_file(cache_dir, model, track, scope, writer)]


def _age(path: Path) -> tuple[str, str]:
    found = WRITER.search(path.name)
    return (found["time"] if found else "", path.as_posix())


def shards(cache_dir: str | Path, model: str) -> list[Path]:
    """Every file holding the model's answers, in the order lookups prefer them (oldest first)."""
    legacy = legacy_file(cache_dir, model)
    return [*([legacy] if legacy.is_file() else []), *sorted(model_folder(cache_dir, model).glob("*/*.sqlite"), key=_age)]


def writer_gone(path: Path) -> bool:
    """True when the shard's writer is known to have ended: its process, on this host, is gone. A
    shard of another host, or without a writer name, is never taken for ended."""
    found = WRITER.search(path.name)
    if not found or found["host"] != _host():
        return False
    try:
        os.kill(int(found["pid"]), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def cached_models(cache_dir: str | Path) -> list[str]:
    cache_dir = Path(cache_dir)
    sharded = {p.name for p in (cache_dir / SHARDS).glob("*") if p.is_dir()}
    return sorted(sharded | {p.stem for p in cache_dir.glob("*.sqlite")})


def _new_shard(path: Path) -> ResponseCache:
    """The process's own shard, made whole under a temporary name and renamed into place: a reader
    that lists it never opens a file without its tables."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        ResponseCache(tmp).close()
    except CacheError:
        if tmp.exists():  # a full disk: nothing half-made is left
            tmp.unlink()
        raise
    os.replace(tmp, path)
    return ResponseCache(path)


class ModelCache:
    """The `ResponseCache` interface over a model's shards. With `writer=(track, scope)` (the
    answer job) answers go to a shard of this process's own (`writer_id`); without one (the
    per-file readers: scores, a track's collectors) every shard is opened read-only and nothing
    is written."""

    def __init__(self, cache_dir: str | Path, model: str, writer: tuple[str, str] | None = None):
        self.cache_dir, self.model = Path(cache_dir), model
        self._own = None
        self.writer = None
        if writer is not None:
            self.writer = writer_id()
            self.path = written_files(cache_dir, *writer, model, self.writer)[0]
            self._own = _new_shard(self.path)
        else:
            self.path = model_folder(cache_dir, model)
        self._others: dict[Path, ResponseCache | None] = {}

    def reader(self) -> "ModelCache":
        """A read-only view of every shard (for a thread of its own: SQLite handles stay in theirs)."""
        return ModelCache(self.cache_dir, self.model)

    def _readers(self) -> list[ResponseCache]:
        out = []
        for path in shards(self.cache_dir, self.model):
            if self._own is not None and path == self._own.path:
                out.append(self._own)
                continue
            if path not in self._others:
                self._others[path] = self._open(path)
            if self._others[path] is not None:
                out.append(self._others[path])
        if self._own is not None and self._own not in out:
            out.append(self._own)
        return out

    def _open(self, path: Path) -> ResponseCache | None:
        try:
            return ResponseCache(path, readonly=True)
        except ShardInUse as exc:
            if exc.hot_journal and self._own is not None and writer_gone(path):
                # its writer was killed mid-write and is gone: roll its journal back (what its own
                # rerun did when a shard outlived its process) instead of asking its answers again
                log.warning("%s: rolled back the write its killed process left unfinished", path)
                ResponseCache(path).close()
                return ResponseCache(path, readonly=True)
            # another process's shard mid-write, or left with a hot journal by a killed process
            # that may still run elsewhere: never written here. An answer job asks its answers
            # again; a reader finds what it needs in its answer job's shard, or names the missing answers
            log.warning("skipped %s", exc)
            return None
        except CacheError:
            if path.exists():
                raise
            return None  # an empty shard its process removed since it was listed

    def get_many(self, keys: list[str]) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for cache in self._readers():
            missing = [k for k in keys if k not in out]
            if not missing:
                break
            out.update(cache.get_many(missing))
        return out

    def _writable(self) -> ResponseCache:
        if self._own is None:
            raise CacheError(f"{self.path}: opened to read; only the answer job writes its shard")
        return self._own

    def put(self, key: str, record: dict, identity: dict | None = None) -> None:
        self._writable().put(key, record, identity)

    def store_answer(self, key: str, record: dict, identity: dict, model: str) -> None:
        self._writable().store_answer(key, record, identity, model)

    def __len__(self) -> int:
        return sum(len(c) for c in self._readers())

    def close(self) -> None:
        """Close every file; the process's own shard goes if it holds nothing (a job whose prompts
        were all cached leaves no file behind)."""
        for cache in self._others.values():
            if cache is not None:
                cache.close()
        self._others.clear()
        if self._own is not None:
            empty = self._own.holds_nothing()
            self._own.close()
            if empty:
                self._own.path.unlink(missing_ok=True)
            self._own = None


def summary(cache_dir: str | Path, model: str) -> dict:
    """`lrworld cache list` for one model: entries, bytes and identities summed over its shards
    (opened to read and write: run it while no answer job of the model runs)."""
    files, entries, size, per = [], 0, 0, {}
    for path in shards(cache_dir, model):
        cache = ResponseCache(path, create=False)
        try:
            s = cache.summary()
        finally:
            cache.close()
        files.append(str(path))
        entries += s["entries"]
        size += s["bytes"]
        for ident in s["identities"]:
            got = per.setdefault(ident["id"], {**ident, "entries": 0})
            got["entries"] += ident["entries"]
    return {"path": str(model_folder(cache_dir, model)), "shards": files, "entries": entries, "bytes": size,
            "identities": [per[k] for k in sorted(per, key=lambda k: k or "")]}


def purge(cache_dir: str | Path, model: str, identity_prefix: str | None = None) -> int:
    """Delete the model's answers (all, or one identity's) from every shard; returns how many."""
    if identity_prefix is not None and not re.fullmatch(r"[0-9a-f]+", identity_prefix):
        raise CacheError(f"{model_folder(cache_dir, model)}: --identity {identity_prefix!r} is not an identity id "
                         f"or prefix (hex digits, from `lrworld cache list`)")
    paths = shards(cache_dir, model)
    if not paths:
        known = cached_models(cache_dir)
        raise CacheError(f"{model_folder(cache_dir, model)}: no cache for model {model!r}; cached models: "
                         f"{', '.join(known) or 'none'}")
    caches = [ResponseCache(p, create=False) for p in paths]
    try:
        if identity_prefix is None:
            return sum(c.purge() for c in caches)
        ids = {i["id"] for c in caches for i in c.summary()["identities"]
               if i["id"] and i["id"].startswith(identity_prefix)}
        if len(ids) != 1:
            raise CacheError(f"{model_folder(cache_dir, model)}: identity {identity_prefix!r} matches {len(ids)} "
                             f"identities; `lrworld cache list` shows them")
        (full,) = ids
        return sum(c.purge(full) for c in caches if any(i["id"] == full for i in c.summary()["identities"]))
    finally:
        for c in caches:
            c.close()
