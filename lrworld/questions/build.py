"""Dispatch from a measure id to its question builder, with the shared windowing and sampling."""

from __future__ import annotations

import pandas as pd

from lrworld import measures
from lrworld.questions import knowledge
from lrworld.questions.seeding import rng_for
from lrworld.questions.windows import latest_windows, sample


class QuestionError(ValueError):
    pass


def build_questions(dataset: str, domain: str, measure_id: str, interactions: pd.DataFrame,
                    items: pd.DataFrame, history_length: int, n_questions: int | None, seed: int):
    m = measures.get(domain, measure_id)
    if not m.built:
        raise QuestionError(f"{dataset}/{measure_id}: no question builder yet")
    rng = rng_for(seed, dataset, measure_id)
    windows = latest_windows(interactions, history_length)
    users = interactions["user_id"].nunique()
    if not windows:
        raise QuestionError(f"{dataset}/{measure_id}: no user has more than history_length={history_length} "
                            f"interactions")
    # Sample more windows than needed so that skips (missing values) still leave n questions.
    pool = sample(windows, None, rng)
    questions, report = knowledge.build(m, dataset, [pool[i] for i in rng.permutation(len(pool))], items, rng, seed)
    questions = sorted(questions[: n_questions] if n_questions else questions, key=lambda q: q["qid"])
    report.update({
        "dataset": dataset, "measure": measure_id, "seed": seed, "history_length": history_length,
        "users": int(users), "users_without_window": int(users - len(windows)),
        "questions": len(questions), "requested": n_questions,
    })
    if not questions:
        raise QuestionError(f"{dataset}/{measure_id}: no question could be built ({report['skipped']})")
    return questions, report
