"""Accuracy (MCQ), HitRate@1 (10 candidates) and missed rate, per the paper §5.1 and A.7, with the
answer-slot use of the model and a position-debiased figure beside the raw one.

Both primary metrics are correct / all questions: a missed (unparseable) answer counts as wrong,
and the missed rate is reported beside it.

Degenerate answers: a model that picks one slot for most questions (SmolLM2 answers "A"
to 30 of 30 four-option questions) scores the share of answers that happen to sit in that slot.
Each score carries the share of its most frequent chosen slot (of all questions) and a
`degenerate` flag at DEGENERATE_SHARE or above (40 of 50 answers in one slot is degenerate).

Debiased figure: PriDe-style prior correction (Zheng et al. 2023, "Large Language Models Are Not
Robust Multiple Choice Selectors", ICLR 2024). The observed label distribution of a question is
taken as prior(slot) x debiased(option); the prior is estimated as the mean predicted label
distribution over the cell's questions, and each question's debiased choice is
argmax_i [log p_i - log prior_i]. PriDe estimates the prior from cyclic permutations of a few
questions' options; the mean over all questions needs no extra forward pass and estimates the same
prior here because the answers sit in uniformly drawn slots (the audit checks it), so option
content averages out across slots. No answer label is used. Only choice-mode responses have label
log-probabilities; for the others `debiased` is None (the table then uses the shuffle variants).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

DEGENERATE_SHARE = 0.8
DEBIAS_METHOD = "pride_prior: mean predicted label distribution over the cell's questions (Zheng et al. 2023)"


def slot_use(records: list[dict], n_slots: int) -> dict:
    """How often the model chose each slot; the most frequent one, its share of all questions."""
    chosen = Counter(r["parsed"] for r in records if r["parsed"] is not None)
    counts = [chosen.get(i, 0) for i in range(n_slots)]
    top = int(np.argmax(counts)) if any(counts) else None
    share = counts[top] / len(records) if top is not None else 0.0
    return {"slot_counts": counts, "top_slot": top, "top_slot_share": share, "degenerate": share >= DEGENERATE_SHARE}


def _has_logprobs(record: dict) -> bool:
    """-inf is a label with no mass (allowed); None or NaN is a missing value."""
    lp = record.get("label_logprobs")
    return (bool(lp) and all(isinstance(v, (int, float)) and not math.isnan(v) for v in lp)
            and any(math.isfinite(v) for v in lp))


def logprobs_missing(records: list[dict]) -> int:
    """Records without a log-probability (a number, not NaN) for every label."""
    return sum(1 for r in records if not _has_logprobs(r))


def pride_debiased(records: list[dict]) -> tuple[float, list[float]] | None:
    """(debiased accuracy, estimated slot prior), or None when a record lacks a finite log-probability
    for some label (a server that sent none, or NaN): a partial row would make the prior NaN."""
    if not records or logprobs_missing(records):
        return None
    from scipy.special import log_softmax  # 0.15 s that a job scoring text answers does not need

    logp = log_softmax(np.asarray([r["label_logprobs"] for r in records], dtype=np.float64), axis=1)
    prior = np.exp(logp).mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # a slot no question gave any mass stays impossible (-inf - -inf would be nan)
        adjusted = np.where(prior > 0, logp - np.log(prior), -np.inf)
    choice = adjusted.argmax(axis=1)
    gold = np.asarray([r["answer_index"] for r in records])
    return float((choice == gold).mean()), prior.tolist()


def score(records: list[dict], primary_metric: str, n_slots: int | None = None) -> dict:
    """`records` carry `parsed` (int or None) and `answer_index` (and `label_logprobs` in choice
    mode). `n_slots`: the number of candidates (default: the largest slot seen)."""
    n = len(records)
    if n == 0:
        raise ValueError("no records to score")
    if n_slots is None:
        n_slots = 1 + max(max(r["answer_index"], r["parsed"] if r["parsed"] is not None else 0) for r in records)
    correct = sum(1 for r in records if r["parsed"] is not None and r["parsed"] == r["answer_index"])
    missed = sum(1 for r in records if r["parsed"] is None)
    debiased = pride_debiased(records)
    return {
        "n": n,
        "correct": correct,
        "missed": missed,
        primary_metric: correct / n,
        "missed_rate": missed / n,
        "primary_metric": primary_metric,
        "value": correct / n,
        **slot_use(records, n_slots),
        "debiased": debiased[0] if debiased else None,
        "debiased_method": DEBIAS_METHOD if debiased else None,
        "label_prior": debiased[1] if debiased else None,
        "logprobs_missing": logprobs_missing(records),
    }
