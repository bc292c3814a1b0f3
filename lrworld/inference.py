"""Answer prompt records with a backend, through the response cache.

Only cache misses reach the backend, and the backend (which may load gigabytes of weights) is
built lazily, so a rerun whose prompts are all cached never loads a model.
"""

from __future__ import annotations

import logging
from typing import Callable

from lrworld.models.base import PromptItem, Response
from lrworld.models.cache import ResponseCache, cache_key
from lrworld.scoring.parse import parse_choice

log = logging.getLogger(__name__)


def _item(rec: dict) -> PromptItem:
    return PromptItem(qid=rec["qid"], prompt=rec["prompt"], labels=tuple(rec["labels"]),
                      candidates=tuple(rec.get("candidates", ())), image_paths=tuple(rec.get("image_paths", ())))


def answer_prompts(prompts: list[dict], backend_factory: Callable[[], object], cache: ResponseCache,
                   chunk_size: int = 16) -> tuple[list[dict], dict]:
    backend = backend_factory()
    identity = backend.identity()
    keys = [cache_key(identity, p["prompt"]) for p in prompts]
    cached = cache.get_many(keys)
    todo = [i for i, k in enumerate(keys) if k not in cached]
    log.info("%d prompts, %d cached, %d to ask", len(prompts), len(prompts) - len(todo), len(todo))
    def store(i: int, resp: Response) -> None:
        rec = resp.to_dict()
        rec.pop("qid", None)
        cache.put(keys[i], rec)
        cached[keys[i]] = rec

    asked = 0
    if todo and hasattr(backend, "answer_iter"):
        # Concurrent API backends: each answer is stored the moment it arrives, in any order.
        for j, resp in backend.answer_iter([_item(prompts[i]) for i in todo]):
            store(todo[j], resp)
            asked += 1
    else:
        for start in range(0, len(todo), chunk_size):
            idx = todo[start:start + chunk_size]
            for i, resp in zip(idx, backend.answer([_item(prompts[i]) for i in idx])):
                store(i, resp)
            asked += len(idx)
    out = []
    for p, k in zip(prompts, keys):
        rec = dict(cached[k])
        parsed = rec.get("choice_index")
        if parsed is None:
            parsed = parse_choice(rec.get("raw_text"), p["labels"], p.get("candidates", ()))
        out.append({
            "qid": p["qid"], "measure": p.get("measure"), "variant": p.get("variant"),
            "prompt_sha256": p["prompt_sha256"], "cache_key": k,
            "answer_index": p["answer_index"], "parsed": parsed, **rec,
        })
    return out, {"prompts": len(prompts), "asked": asked, "cached": len(prompts) - asked, "identity": identity}
