"""LLM-SR through the one inference stage: the T runs of a user are T requests (the same prompt,
the run index as the request's `sample`), answered by the `answer` rule, then read from the cache
and turned into lists by the extractor.

Records, as every recommender's (lrworld.tracks.srbench.runner)::

    {"run": t, "seed": t, "user_id": u, "items": [...], "latency_s": x, "fit_s": 0.0,
     "raw_text": ..., "n_numbers": n, "hallucinated": [...], "n_duplicates": d}
"""

from __future__ import annotations

from typing import Sequence

from lrworld.tracks.srbench import prompts
from lrworld.tracks.srbench.data import SplitData
from lrworld.tracks.srbench.extract import extract


def requests(data: SplitData, dataset: str, users: Sequence[str], k: int, runs: int, mode: str = "few_shot",
             max_history: int | None = None) -> list[dict]:
    """One request per (run, user): free generation of k item ids out of the dataset's indices."""
    hist = data.histories()
    table = prompts.item_table(data.items)
    ids = sorted(data.index_to_item())
    out = []
    for t in range(runs):
        for u in users:
            out.append({"qid": prompts.qid(dataset, u, t, mode), "user_id": u, "run": t, "sample": t, "mode": mode,
                        "prompt": prompts.render(hist.get(u, []), table, k, dataset, mode, max_history),
                        "list_k": k, "id_range": [ids[0], ids[-1]]})
    return out


def lists(reqs: Sequence[dict], answers: Sequence[dict], data: SplitData, k: int) -> list[dict]:
    """The recommender records of cached answers (in request order)."""
    index_to_item = data.index_to_item()
    records = []
    for r, a in zip(reqs, answers):
        ex = extract(a.get("raw_text") or "", index_to_item, k)
        records.append({"run": r["run"], "seed": r["run"], "user_id": r["user_id"], "items": ex.items,
                        "latency_s": a.get("latency_s") or 0.0, "fit_s": 0.0, "raw_text": a.get("raw_text"),
                        "n_numbers": len(ex.numbers), "hallucinated": ex.hallucinated,
                        "n_duplicates": ex.n_duplicates})
    return records
