"""Answer prompt records with a backend, through the response cache.

Only cache misses reach the backend, and the backend (which may load gigabytes of weights) is
built lazily, so a rerun whose prompts are all cached never loads a model.
"""

from __future__ import annotations

import logging
from typing import Callable

from lrworld.models.base import PromptItem, Response
from lrworld.inference.cache import ResponseCache, cache_key
from lrworld.scoring.parse import parse_choice

log = logging.getLogger(__name__)


def _item(rec: dict) -> PromptItem:
    return PromptItem(qid=rec["qid"], prompt=rec["prompt"], labels=tuple(rec["labels"]),
                      candidates=tuple(rec.get("candidates", ())), image_paths=tuple(rec.get("image_paths", ())))


def fill_cache(prompts: list[dict], backend_factory: Callable[[], object], cache: ResponseCache,
               chunk_size: int = 16) -> dict:
    """Ask the backend every prompt not yet in the cache; each answer is stored as it arrives.

    Identical prompts (e.g. shared by two measures) are asked once. Returns the backend identity
    (the cache's key space) and counts.
    """
    backend = backend_factory()
    identity = backend.identity()
    unique: dict[str, dict] = {}
    for p in prompts:
        unique.setdefault(cache_key(identity, p["prompt"]), p)
    keys = list(unique)
    done = cache.get_many(keys)
    todo = [k for k in keys if k not in done]
    log.info("%d prompts (%d distinct), %d cached, %d to ask", len(prompts), len(keys), len(keys) - len(todo), len(todo))

    def store(key: str, resp: Response) -> None:
        rec = resp.to_dict()
        rec.pop("qid", None)
        cache.put(key, rec)

    asked = 0
    if todo and hasattr(backend, "answer_iter"):
        # Concurrent API backends: each answer is stored the moment it arrives, in any order.
        for j, resp in backend.answer_iter([_item(unique[k]) for k in todo]):
            store(todo[j], resp)
            asked += 1
    else:
        for start in range(0, len(todo), chunk_size):
            chunk = todo[start:start + chunk_size]
            for key, resp in zip(chunk, backend.answer([_item(unique[k]) for k in chunk])):
                store(key, resp)
            asked += len(chunk)
    info = {"identity": identity, "prompts": len(prompts), "distinct": len(keys), "asked": asked,
            "cached": len(keys) - asked}
    if asked and hasattr(backend, "batch_summary"):  # local backends: batches and their padding share
        info["batching"] = backend.batch_summary()
    return info


def collect_responses(prompts: list[dict], identity: dict, cache: ResponseCache) -> list[dict]:
    """Per-sample response records for `prompts`, read from the cache and parsed."""
    keys = [cache_key(identity, p["prompt"]) for p in prompts]
    found = cache.get_many(keys)
    missing = [p["qid"] for p, k in zip(prompts, keys) if k not in found]
    if missing:
        raise LookupError(f"{len(missing)} prompts have no cached answer (first: {missing[0]}); "
                          f"the model's answer job did not finish: rerun snakemake")
    out = []
    for p, k in zip(prompts, keys):
        rec = dict(found[k])
        parsed = rec.get("choice_index")
        if parsed is None:
            parsed = parse_choice(rec.get("raw_text"), p["labels"], p.get("candidates", ()),
                                  labels_shown=p.get("labels_shown", True))
        out.append({
            "qid": p["qid"], "measure": p.get("measure"), "variant": p.get("variant"),
            "prompt_sha256": p["prompt_sha256"], "cache_key": k,
            "answer_index": p["answer_index"], "parsed": parsed, **rec,
        })
    return out


def answer_prompts(prompts: list[dict], backend_factory: Callable[[], object], cache: ResponseCache,
                   chunk_size: int = 16) -> tuple[list[dict], dict]:
    """fill_cache then collect_responses, in one call."""
    info = fill_cache(prompts, backend_factory, cache, chunk_size)
    return collect_responses(prompts, info["identity"], cache), info
