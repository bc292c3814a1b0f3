"""Knowledgeability questions (MCQ, 4 options): predict a field of the next item, not the item.

The answer is a value of the positive item's field (its genre, director, ...); the three negatives
are other values of the same field, drawn uniformly from the field's distinct values over all items
and never among the positive item's own values, so no distractor is also correct.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from lrworld.measures import Measure
from lrworld.questions.seeding import place_answer
from lrworld.questions.windows import Window

# How the answer value is taken from a multi-valued field: the main director or lead actor is the
# first listed; genres are unordered in MovieLens (alphabetic flags), so one is drawn at random.
ANSWER_POLICY = {"genres": "random", "director": "first", "cast": "first"}


def _values(v) -> list[str]:
    if isinstance(v, (list, tuple, np.ndarray)):
        return [str(x) for x in v if isinstance(x, str) and x.strip()]
    if isinstance(v, str) and v.strip():
        return [v]
    return []


def build(measure: Measure, dataset: str, windows: list[Window], items: pd.DataFrame,
          rng: np.random.Generator, seed: int) -> tuple[list[dict], dict]:
    field = measure.field
    if field not in items.columns:
        raise ValueError(f"{dataset}/{measure.id}: items have no column {field!r}; configure the metadata source")
    values = {str(i): _values(v) for i, v in zip(items["item_id"], items[field])}
    pool = sorted({x for vs in values.values() for x in vs})
    n_neg = measure.n_candidates - 1
    skipped = Counter()
    questions = []
    for w in windows:
        own = values.get(w.positive, [])
        if not own:
            skipped["positive_has_no_value"] += 1
            continue
        if ANSWER_POLICY.get(field, "first") == "random":
            answer = own[int(rng.integers(len(own)))]
        else:
            answer = own[0]
        eligible = [v for v in pool if v not in set(own)]
        if len(eligible) < n_neg:
            skipped["too_few_distinct_values"] += 1
            continue
        negatives = [eligible[i] for i in rng.choice(len(eligible), size=n_neg, replace=False)]
        candidates, slot = place_answer(answer, negatives, rng)
        questions.append({
            "qid": f"{dataset}/{measure.id}/u{w.user_id}",
            "dataset": dataset,
            "measure": measure.id,
            "qtype": measure.qtype,
            "user_id": w.user_id,
            "history": list(w.history),
            "target_item": w.positive,
            "candidate_kind": "value",
            "candidates": candidates,
            "answer_index": slot,
            "seed": seed,
        })
    return questions, {"skipped": dict(skipped), "value_pool": len(pool)}
