"""Score one model's answers on one dataset's frozen candidate sets."""

from __future__ import annotations

import numpy as np

from lrworld.tracks.llara.metrics import summarize
from lrworld.tracks.llara.parse import parse_answer, parse_index


def score_responses(candidate_records: list[dict], responses: list[dict], mode: str = "text") -> tuple[list[dict], dict]:
    """``mode="text"``: LLaRA's title parse of ``raw_text`` (every LLM, including the random
    backend). ``mode="index"``: ``choice_index`` picks the candidate (traditional recommenders).

    Returns (one record per question, summary). Every question needs exactly one response."""
    if mode not in ("text", "index"):
        raise ValueError(f"mode must be 'text' or 'index', got {mode!r}")
    by_qid: dict[str, dict] = {}
    for r in responses:
        if r["qid"] in by_qid:
            raise ValueError(f"duplicate response for {r['qid']}")
        by_qid[r["qid"]] = r
    known = {c["qid"] for c in candidate_records}
    if extra := sorted(set(by_qid) - known):
        raise ValueError(f"{len(extra)} response(s) for unknown questions, e.g. {extra[:3]}")
    if missing := sorted(known - set(by_qid)):
        raise ValueError(f"{len(missing)} question(s) without a response, e.g. {missing[:3]}")
    parsed, per_q = [], []
    for c in candidate_records:
        r = by_qid[c["qid"]]
        if mode == "text":
            p = parse_answer(r.get("raw_text", ""), c["candidate_titles"], c["next_title"])
        else:
            p = parse_index(r.get("choice_index"), len(c["candidates"]), c["gold_index"])
        parsed.append(p)
        per_q.append({"qid": c["qid"], "raw_text": r.get("raw_text"), "valid": p.valid, "correct": p.correct,
                      "choice_index": p.choice_index, "matched": list(p.matched), "gold_index": c["gold_index"],
                      "ambiguous": c["ambiguous"]})
    summary = summarize(parsed, [c["ambiguous"] for c in candidate_records])
    summary["parse"] = "llara_title_substring" if mode == "text" else "candidate_index"
    return per_q, summary


# Summary keys averaged over seeds (each also gets ``<key>_sd``, the sample standard deviation).
SEED_METRICS = ("hit_ratio_at_1_all", "hit_ratio_at_1_valid", "valid_ratio")


def score_seeds(candidate_records: list[dict], responses_by_seed: dict[int, list[dict]],
                mode: str = "index") -> tuple[list[dict], dict]:
    """A model trained once per seed (a traditional recommender: ``mode="index"``; a LLaRA-trained
    row: ``"text"``): each seed scored on its own, then the mean and sample standard deviation
    (ddof 1; None for one seed) over seeds, as LLaRA reports its traditional models (mean of 5
    seeds). ``per_seed`` keeps every seed's figures; the per-question records carry their ``seed``."""
    if not responses_by_seed:
        raise ValueError("no seed's responses to score")
    per_q, per_seed = [], []
    for seed in sorted(responses_by_seed):
        rows, summ = score_responses(candidate_records, responses_by_seed[seed], mode=mode)
        per_q += [{**r, "seed": seed} for r in rows]
        per_seed.append({"seed": seed, "n_correct": summ["n_correct"], "n_valid": summ["n_valid"],
                         **{k: summ[k] for k in SEED_METRICS}})
    out = {"n_questions": len(candidate_records), "n_seeds": len(per_seed),
           "parse": "candidate_index" if mode == "index" else "llara_title_substring"}
    for k in SEED_METRICS:
        values = np.array([s[k] for s in per_seed])
        out[k] = float(values.mean())
        out[f"{k}_sd"] = float(values.std(ddof=1)) if len(values) > 1 else None
    out["per_seed"] = per_seed
    return per_q, out
