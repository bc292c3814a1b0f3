"""A model's response cache as shards: one SQLite file per answer job, so that no two jobs that may
run at once (on different nodes of a cluster, over a network file system) ever write one file.

    <cache_dir>/responses/<model>/<track>/<scope>.sqlite   written by answer job (track, scope, model) only
    <cache_dir>/<model>.sqlite                              a single-file cache from before shards: read only

Lookups read every shard, so an answer any job stored is never asked again. Where two shards hold
an answer to one key (two jobs that ran at once asked the same prompt), the first in `shards`
order wins for every reader: the pre-shard file, then the shards by path.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from lrworld.inference.cache import CacheError, ResponseCache, ShardInUse

log = logging.getLogger(__name__)

SHARDS = "responses"


def model_folder(cache_dir: str | Path, model: str) -> Path:
    return Path(cache_dir) / SHARDS / model


def legacy_file(cache_dir: str | Path, model: str) -> Path:
    return Path(cache_dir) / f"{model}.sqlite"


def shard_file(cache_dir: str | Path, model: str, track: str, scope: str) -> Path:
    """The one file answer job (track, scope, model) writes."""
    return model_folder(cache_dir, model) / track / f"{scope}.sqlite"


def written_files(cache_dir: str | Path, track: str, scope: str, model: str) -> list[Path]:
    """Every file under cache_dir answer job (track, scope, model) writes: its shard (answers and
    open Batch API batches) and its reply digests. No other job writes any of them."""
    from lrworld.inference.stage import replies_record

    return [shard_file(cache_dir, model, track, scope), replies_record(cache_dir, track, scope, model)]


def shards(cache_dir: str | Path, model: str) -> list[Path]:
    """Every file holding the model's answers, in the order lookups prefer them."""
    legacy = legacy_file(cache_dir, model)
    return [*([legacy] if legacy.is_file() else []), *sorted(model_folder(cache_dir, model).glob("*/*.sqlite"))]


def cached_models(cache_dir: str | Path) -> list[str]:
    cache_dir = Path(cache_dir)
    sharded = {p.name for p in (cache_dir / SHARDS).glob("*") if p.is_dir()}
    return sorted(sharded | {p.stem for p in cache_dir.glob("*.sqlite")})


class ModelCache:
    """The `ResponseCache` interface over a model's shards. With `writer=(track, scope)` (the
    answer job) answers go to that job's shard; without one (the per-file readers: scores, a
    track's collectors) every shard is opened read-only and nothing is written."""

    def __init__(self, cache_dir: str | Path, model: str, writer: tuple[str, str] | None = None):
        self.cache_dir, self.model = Path(cache_dir), model
        self._own = None
        if writer is not None:
            self.path = written_files(cache_dir, *writer, model)[0]
            self._own = ResponseCache(self.path)
        else:
            self.path = model_folder(cache_dir, model)
        self._others: dict[Path, ResponseCache | None] = {}

    def _readers(self) -> list[ResponseCache]:
        out = []
        for path in shards(self.cache_dir, self.model):
            if self._own is not None and path == self._own.path:
                out.append(self._own)
                continue
            if path not in self._others:
                try:
                    self._others[path] = ResponseCache(path, readonly=True)
                except ShardInUse as exc:
                    # another job's shard mid-write, or left with a hot journal by a killed job
                    # (only its own job rolls that back): never written here. An answer job asks
                    # its answers again; a reader finds what it needs in its answer job's shard,
                    # or names the missing answers
                    log.warning("skipped %s", exc)
                    self._others[path] = None
            if self._others[path] is not None:
                out.append(self._others[path])
        if self._own is not None and self._own not in out:
            out.append(self._own)
        return out

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
        for cache in [self._own, *self._others.values()]:
            if cache is not None:
                cache.close()
        self._others.clear()


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
