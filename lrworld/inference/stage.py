"""The one inference stage: every model call of every track (LRWorld questions, LLaRA, SRBench's
repeated runs, image captions) is a request answered through the durable response cache.

A request is a JSON record with `qid` and `prompt`, and optionally `labels` (the options a model
may answer with), `candidates`, `image_paths` with their `image_sha256`, and `sample` (the run
index). Only cache misses reach the backend, and the backend (which may load gigabytes of
weights) is built lazily, so a rerun whose requests are all cached never loads a model.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Callable

from lrworld.core import progress
from lrworld.core.io import dumps_canonical, sha256_text
from lrworld.inference.cache import ResponseCache, request_key
from lrworld.inference.folder_id import folder_lineage
from lrworld.models.base import PromptItem, Response
from lrworld.scoring.parse import parse_choice

log = logging.getLogger(__name__)


class NoLogprobs(ValueError):
    """A choice-mode model whose server sent no label log-probabilities at all."""


def to_item(req: dict) -> PromptItem:
    return PromptItem(qid=req["qid"], prompt=req["prompt"], labels=tuple(req.get("labels", ())),
                      candidates=tuple(req.get("candidates", ())), image_paths=tuple(req.get("image_paths", ())),
                      list_k=req.get("list_k"), id_range=tuple(req["id_range"]) if req.get("id_range") else None,
                      history_items=tuple(req.get("history_items", ())),
                      candidate_items=tuple(req.get("candidate_items", ())),
                      option_signals=req.get("option_signals"))


def fill_cache(requests: list[dict], backend_factory: Callable[[], object], cache: ResponseCache,
               chunk_size: int = 16, desc: str = "answer", check_identity: Callable[[dict], None] | None = None) -> dict:
    """Ask the backend every request not yet in the cache; each answer is stored as it arrives.

    Identical requests (e.g. a prompt shared by two measures) are asked once. Progress goes to a
    bar (`lrworld.core.progress`: prompts/s, tokens/s, ETA). Returns the backend identity (the
    cache's key space) and counts: asked, cached, missed (answers to option questions that name no
    option), tokens of the asked prompts and answers, wall seconds.
    """
    start = time.perf_counter()
    backend = backend_factory()
    identity = backend.identity()
    if check_identity is not None:  # before any prompt is asked with weights the plan did not see
        check_identity(identity)
    unique: dict[str, dict] = {}
    for r in requests:
        unique.setdefault(request_key(identity, r), r)
    keys = list(unique)
    done = cache.get_many(keys)
    todo = [k for k in keys if k not in done]
    log.info("%d prompts (%d distinct), %d cached, %d to ask", len(requests), len(keys), len(keys) - len(todo), len(todo))
    tokens = {"tokens_in": 0, "tokens_out": 0}

    def store(key: str, resp: Response) -> None:
        rec = resp.to_dict()
        rec.pop("qid", None)
        cache.store_answer(key, rec, identity, getattr(backend, "name", "?"))
        done[key] = rec
        tokens["tokens_in"] += resp.tokens_in or 0
        tokens["tokens_out"] += resp.tokens_out or 0

    def advance(bar, n: int) -> None:
        elapsed = bar.format_dict["elapsed"]
        if elapsed > 0:
            bar.set_postfix_str(f"{(tokens['tokens_in'] + tokens['tokens_out']) / elapsed:.0f} tok/s", refresh=False)
        bar.update(n)

    asked = 0
    with progress.bar(len(todo), desc, "prompt", log, disable=not todo) as bar:
        for key, resp in _ask(backend, cache, todo, unique, chunk_size):
            if resp is None:  # answered by another process sharing the cache since this job started
                done.update(_stored_elsewhere(cache, key))
            else:
                store(key, resp)
                asked += 1
            advance(bar, 1)
    missed = sum(1 for k, r in unique.items() if r.get("labels") and _choice(r, done[k]) is None)
    info = {"identity": identity, "prompts": len(requests), "distinct": len(keys), "asked": asked,
            "cached": len(keys) - asked, "missed": missed, **tokens,
            "wall_s": round(time.perf_counter() - start, 3)}
    if getattr(backend, "mode", None) == "choice":
        # A server that sends no (or NaN) log-probs makes choice mode fall back to parsing text:
        # counted and said, and refused when no answer has any (the mode then measures nothing).
        lacking = sum(1 for k in keys if not _any_logprob(done[k]))
        info["logprobs_missing"] = lacking
        if lacking and lacking == len(keys):
            raise NoLogprobs(f"answer {getattr(backend, 'name', '?')}: mode choice, but none of {len(keys)} answers "
                             f"carries label log-probabilities (the server sent none or NaN); use a server that "
                             f"returns top_logprobs, or set the model's mode: generate (modes: generate, choice; "
                             f"generate parses the option from the reply's text)")
        if lacking:
            log.warning("%d of %d answers carry no label log-probabilities (server sent none or NaN): "
                        "their choice is parsed from the text", lacking, len(keys))
    if asked and hasattr(backend, "batch_summary"):  # local backends: batches and their padding share
        info["batching"] = backend.batch_summary()
    return info


def _ask(backend, cache: ResponseCache, todo: list[str], unique: dict[str, dict], chunk_size: int):
    """(key, Response) for each request asked, and (key, None) for each that another process
    sharing the cache (another invocation on one cache_dir) answered before it went: what is
    visible in the cache is checked just before each request (a backend that asks one at a time)
    or each chunk."""
    if not todo:  # a managed server starts on the first request: none for a job with all cached
        return
    if hasattr(backend, "answer_iter"):  # each answer is stored the moment it arrives, in any order
        skip = None
        if getattr(backend, "asks_one_at_a_time", False) and getattr(cache, "writer", None):
            # two processes asking one list in one order would ask every prompt at once, side by
            # side: each asks in an order of its own and skips what the other answered
            todo = sorted(todo, key=lambda k: sha256_text(cache.writer + k))
            skip = _AnsweredElsewhere(cache.reader, todo)
        items = [to_item(unique[k]) for k in todo]
        try:
            for j, resp in backend.answer_iter(items, skip=skip) if skip else backend.answer_iter(items):
                yield todo[j], resp
        finally:
            if skip is not None:
                skip.close()
        return
    for first in range(0, len(todo), chunk_size):
        chunk = todo[first:first + chunk_size]
        seen = cache.get_many(chunk) if first else {}
        yield from ((k, None) for k in chunk if k in seen)
        ask = [k for k in chunk if k not in seen]
        if ask:
            yield from zip(ask, backend.answer([to_item(unique[k]) for k in ask]))


class _AnsweredElsewhere:
    """skip(j): whether an answer to keys[j] is in the cache by now. The backend calls it from a
    thread of its own just before request j would go, so it reads through a view of the shards
    opened there."""

    def __init__(self, opener: Callable[[], ResponseCache], keys: list[str]):
        self.opener, self.keys, self._view = opener, keys, None

    def __call__(self, j: int) -> bool:
        if self._view is None:
            self._view = self.opener()
        return bool(self._view.get_many([self.keys[j]]))

    def close(self) -> None:
        if self._view is not None:
            self._view.close()


def _stored_elsewhere(cache: ResponseCache, key: str) -> dict:
    got = cache.get_many([key])
    if key not in got:
        raise LookupError(f"{getattr(cache, 'path', cache)}: an answer another process stored is gone again "
                          f"(a purge while this job ran?); rerun snakemake")
    return got


def _any_logprob(answer: dict) -> bool:
    return any(isinstance(v, (int, float)) and math.isfinite(v) for v in answer.get("label_logprobs") or ())


def summary_line(model: str, scope: str, info: dict) -> str:
    """The one line an answer job ends with."""
    rate = f", {info['asked'] / info['wall_s']:.2f} prompts/s" if info["asked"] and info["wall_s"] else ""
    return (f"answer {model} {scope}: {info['prompts']} prompts ({info['distinct']} distinct): asked "
            f"{info['asked']}, cached {info['cached']}, missed {info['missed']}; tokens {info['tokens_in']} in, "
            f"{info['tokens_out']} out (asked prompts); wall {info['wall_s']:.1f} s{rate}"
            + (f"; no log-probs {info['logprobs_missing']}" if info.get("logprobs_missing") else ""))


def _choice(request: dict, answer: dict) -> int | None:
    """The option an answer names (choice scoring's index, else the parsed text)."""
    if answer.get("choice_index") is not None:
        return answer["choice_index"]
    return parse_choice(answer.get("raw_text"), request["labels"], request.get("candidates", ()),
                        labels_shown=request.get("labels_shown", True))


def read_answers(requests: list[dict], identity: dict, cache: ResponseCache) -> list[tuple[str, dict]]:
    """(cache key, cached answer) of every request, in order; every one must be cached."""
    keys = [request_key(identity, r) for r in requests]
    found = cache.get_many(keys)
    missing = [r["qid"] for r, k in zip(requests, keys) if k not in found]
    if missing:
        raise LookupError(f"{len(missing)} prompts have no cached answer (first: {missing[0]}); "
                          f"the model's answer job did not finish: rerun snakemake")
    return [(k, found[k]) for k in keys]


# What in a cached answer a score reads: not its latency or token counts, which a re-ask changes
# without changing the reply.
REPLY_FIELDS = ("raw_text", "choice_index", "label_logprobs", "extra")


def replies_record(cache_dir, track: str, scope: str, model: str, folder: str | None = None):
    """Where the answer job keeps its per-file reply digests beside the cache, as well as in its
    summary: a plan whose summary was deleted with results/ (but whose Snakemake metadata was not)
    reads them here, so a rebuild records the digests the scores were made from, not a
    placeholder that would re-run every score on the next plan. One file per invocation folder
    (`lrworld.inference.folder_id`: each has its own summary, and two folders may share one
    cache_dir at once); `folder` names another's (a copied folder reads its original's)."""
    from pathlib import Path

    return Path(cache_dir) / "replies" / track / scope / f"{model}.{folder or folder_lineage()[0]}.json"


def replies_records(cache_dir, track: str, scope: str, model: str) -> list:
    """The records a plan may read, the current folder's first, then those of the folders it was
    copied from (what the copy's results were made with until it writes its own)."""
    return [replies_record(cache_dir, track, scope, model, f) for f in folder_lineage()]


def replies_sha256(requests: list[dict], identity: dict, cache: ResponseCache) -> str | None:
    """A digest of the cached replies to these requests (None while any is missing). The answer
    summary keeps one per request file and the score job's params read it: a reply changed in
    the cache (a purge and a new server, `--forcerun answer`) re-runs exactly the scores of the
    files whose replies changed."""
    keys = [request_key(identity, r) for r in requests]
    found = cache.get_many(keys)
    if any(k not in found for k in keys):
        return None
    return sha256_text("\n".join(dumps_canonical([k, {f: found[k].get(f) for f in REPLY_FIELDS}]) for k in keys))


def collect_responses(prompts: list[dict], identity: dict, cache: ResponseCache) -> list[dict]:
    """Per-sample response records of LRWorld prompts, read from the cache and parsed."""
    out = []
    for p, (k, found) in zip(prompts, read_answers(prompts, identity, cache)):
        rec = dict(found)
        parsed = _choice(p, rec)
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
