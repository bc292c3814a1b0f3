"""Accuracy (MCQ), HitRatio@1 (10 candidates) and missed rate, per the paper §5.1 and A.7.

Both primary metrics are correct / all questions: a missed (unparseable) answer counts as wrong,
and the missed rate is reported beside it.
"""

from __future__ import annotations


def score(records: list[dict], primary_metric: str) -> dict:
    """`records` carry `parsed` (int or None) and `answer_index`."""
    n = len(records)
    if n == 0:
        raise ValueError("no records to score")
    correct = sum(1 for r in records if r["parsed"] is not None and r["parsed"] == r["answer_index"])
    missed = sum(1 for r in records if r["parsed"] is None)
    return {
        "n": n,
        "correct": correct,
        "missed": missed,
        primary_metric: correct / n,
        "missed_rate": missed / n,
        "primary_metric": primary_metric,
        "value": correct / n,
    }
