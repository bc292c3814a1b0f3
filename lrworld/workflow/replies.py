"""`lrworld verify`'s check of the scores against the response cache: every response a score was
computed from is looked up by its cache key, and a reply the cache now holds differently (a purge
and a new server, a re-ask) is named with the responses file. A reply absent from the cache (a
purge not yet re-asked) is not a mismatch: the numbers are still those of the replies recorded."""

from __future__ import annotations

from pathlib import Path

from lrworld.core import io
from lrworld.inference.cache import CacheError
from lrworld.inference.shards import ModelCache, shards
from lrworld.inference.stage import REPLY_FIELDS


def changed_replies(root: str | Path, cache_dir: str | Path) -> list[dict]:
    """[{path, model, changed, of}] of every responses file some of whose replies differ in the cache."""
    root, cache_dir = Path(root), Path(cache_dir)
    caches: dict[str, ModelCache | None] = {}
    out = []
    try:
        for path in sorted((root / "results/responses").glob("*/*/*/*.jsonl")):
            model = path.parts[-3]
            if model not in caches:
                try:
                    caches[model] = ModelCache(cache_dir, model) if shards(cache_dir, model) else None
                except CacheError:
                    caches[model] = None
            cache = caches[model]
            if cache is None:
                continue
            rows = io.read_jsonl(path)
            found = cache.get_many([r["cache_key"] for r in rows if r.get("cache_key")])
            changed = sum(1 for r in rows if r.get("cache_key") in found
                          and any(_plain(found[r["cache_key"]].get(f)) != _plain(r.get(f)) for f in REPLY_FIELDS))
            if changed:
                out.append({"path": path.relative_to(root).as_posix(), "model": model, "changed": changed,
                            "of": len(rows)})
    finally:
        for cache in caches.values():
            if cache is not None:
                cache.close()
    return out


def _plain(value):
    """A value as the responses file holds it (NaN written as null)."""
    return io.json_safe(value)


def format_changed(items: list[dict]) -> str:
    return "\n".join(f"CHANGED {i['path']} (cache): {i['changed']} of {i['of']} replies differ in the cache "
                     f"of {i['model']}; rerun snakemake to re-score" for i in items)
