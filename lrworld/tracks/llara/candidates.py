"""Frozen candidate sets: the true next item + (n-1) items the user has not interacted with.

LLaRA re-draws negatives on every pass (``negative_sampling`` calls ``random.sample`` in
``__getitem__``); we draw once per question from ``rng_for(seed, dataset, "llara_candidates",
qid)`` and freeze the result as ``candidates.jsonl``. The draw for one question does not depend on
any other question, and no two datasets share a stream.

Pool (as LLaRA): every item with a title, minus the user's known items (``Example.seen``) and the
target. Deviations: items whose normalised title is empty (MovieLens ``unknown``) are left out of
the pool, because ``""`` is "contained" in every answer and would make every answer to that
question invalid; and a negative whose title reads like the target's or an earlier negative's
(ML-100K lists 18 films twice) is rejected and drawn again (two options that read the
same are never shown). Each record counts both (``known_excluded``, ``rejected_same_title``).
"""

from __future__ import annotations

from typing import Iterable

from lrworld.core.display import display_key
from lrworld.questions.negatives import draw_distinct
from lrworld.core.seeding import rng_for
from lrworld.tracks.llara.data import Example, LlaraSet
from lrworld.tracks.llara.parse import ambiguous_pairs, norm_title

N_CANDIDATES = 20


def draw_candidates(ds: LlaraSet, examples: Iterable[Example] | None = None, n: int = N_CANDIDATES,
                    seed: int = 0) -> list[dict]:
    """One record per example: candidate ids (shuffled, gold included), titles, gold index and the
    substring-ambiguity flag (see :func:`lrworld.tracks.llara.parse.ambiguous_pairs`)."""
    examples = ds.test if examples is None else list(examples)
    pool_all = sorted(i for i, t in ds.item_names.items() if norm_title(t))
    keys = {i: display_key(t) for i, t in ds.item_names.items()}
    out = []
    for ex in examples:
        banned = set(ex.seen) | set(ex.history) | {ex.next}
        pool = [i for i in pool_all if i not in banned]
        rng = rng_for(seed, ds.name, "llara_candidates", ex.qid)
        negs, rejected = draw_distinct(pool, n - 1, rng, keys.__getitem__, [keys[ex.next]])
        if len(negs) < n - 1:
            raise ValueError(f"llara.n_candidates: {n} candidates need {n - 1} negatives, but {ex.qid} of "
                             f"{ds.name} has only {len(negs)} items with distinct titles left; lower llara.n_candidates")
        cands = negs + [ex.next]
        cands = [cands[i] for i in rng.permutation(n)]
        titles = [ds.item_names[i] for i in cands]
        pairs = ambiguous_pairs(titles)
        rec = {
            "qid": ex.qid,
            "dataset": ds.name,
            "row_index": ex.row_index,
            "history": list(ex.history),
            "history_titles": [ds.item_names[i] for i in ex.history],
            "next": ex.next,
            "next_title": ds.item_names[ex.next],
            "candidates": cands,
            "candidate_titles": titles,
            "gold_index": cands.index(ex.next),
            "ambiguous": bool(pairs),
            "ambiguous_pairs": [list(p) for p in pairs],
            "known_excluded": len(pool_all) - len(pool),
            "rejected_same_title": rejected,
            "seed": seed,
        }
        if ds.item_ids is not None:
            rec["candidate_item_ids"] = [ds.item_ids[i] for i in cands]
        out.append(rec)
    return out


def summary(records: list[dict]) -> dict:
    """Counts for the candidates artifact's sidecar and the docs."""
    n = len(records)
    n_amb = sum(r["ambiguous"] for r in records)
    gold_amb = sum(any(r["gold_index"] in p for p in r["ambiguous_pairs"]) for r in records)
    return {"n_questions": n, "n_ambiguous_sets": n_amb, "n_ambiguous_sets_involving_gold": gold_amb,
            "share_ambiguous": n_amb / n if n else 0.0,
            "known_items_excluded": sum(r.get("known_excluded", 0) for r in records),
            "negatives_rejected_same_title": sum(r.get("rejected_same_title", 0) for r in records)}
