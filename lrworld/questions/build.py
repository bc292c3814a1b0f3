"""Dispatch from a measure id to its question builder, with the shared windowing and sampling."""

from __future__ import annotations

import pandas as pd

from lrworld.questions import knowledge, measures, shortfall, signals, witnesses
from lrworld.core.seeding import rng_for
from lrworld.questions.windows import latest_windows

# The mini LastFM track evaluates LLaRA's test set as published: each row's whole history (up to 10
# artists) is the history, whatever `questions.history_length` says.
FULL_HISTORY_DOMAINS = {"lastfm"}
LLARA_MAX_HISTORY = 10


class QuestionError(ValueError):
    pass


# Why a window gave no question, as a user can act on it.
SKIP_REASONS = {
    "positive_has_no_value": "the item has no value in items.{field}",
    "positive_has_only_excluded_values": "the item's only values of items.{field} are excluded",
    "positive_has_no_text": "the item has no text in items.{field}",
    "single_source": "the item's items.{field} has one source and facts.min_witnesses is 2",
    "sources_disagree": "the sources that cover the item disagree on items.{field}",
}


def no_question_line(dataset: str, measure_id: str, m, skipped: dict) -> str:
    """One line saying why a measure got no question, and what to change."""
    field = m.field or "?"
    whys = "; ".join(f"{n} windows: {SKIP_REASONS.get(k, k).format(field=field)}" for k, n in
                     sorted(skipped.items(), key=lambda kv: -kv[1])) or "no window was examined"
    if skipped.get("single_source"):
        return (f"{dataset}/{measure_id}: no question could be built ({whys}); add a second source of {field!r} "
                f"(datasets.{dataset}.metadata), set facts.min_witnesses: 1, or remove {measure_id} from "
                f"datasets.{dataset}.measures")
    return (f"{dataset}/{measure_id}: no question could be built ({whys}); the dataset's format or metadata gives "
            f"no {field!r} for these items: add metadata that has it (datasets.{dataset}.metadata), or remove "
            f"{measure_id} from datasets.{dataset}.measures")


def build_questions(dataset: str, domain: str, measure_id: str, interactions: pd.DataFrame,
                    items: pd.DataFrame, history_length: int, n_questions: int | None, seed: int,
                    item_texts: dict[str, str] | None = None, ties: str = "numeric",
                    exclude_values: dict[str, list[str]] | None = None, debias=None, validity=None):
    """`item_texts` (item id -> text) supplies the texts of item-text measures that do not live in
    items.parquet (the image captions of `multimodal`). `ties` and `exclude_values` are
    `questions.ties` and `questions.exclude_values` of the config; `debias` (a
    `distractors.Debias`) its `distractors` and `max_gold_share`; `validity` (a `validity.Validity`)
    its `validity`: `overdraw` times the questions built, then filtered to `n_questions`."""
    from lrworld.questions.validity import Validity, filtered

    validity = validity or Validity()
    m = measures.get(domain, measure_id)
    if "captions" in m.needs and item_texts is None:
        raise QuestionError(f"{dataset}/{measure_id}: needs image captions (the captions rule's output)")
    if domain in FULL_HISTORY_DOMAINS:
        windows = latest_windows(interactions, 1, max_history=LLARA_MAX_HISTORY, ties=ties)
        history_length = None
    else:
        windows = latest_windows(interactions, history_length, ties=ties)
    users = interactions["user_id"].nunique()
    if not windows:
        raise QuestionError(f"{dataset}/{measure_id}: no user has more than history_length={history_length} "
                            f"interactions")
    tied = sum(w.tied for w in windows)
    if ties == "drop":
        windows = [w for w in windows if not w.tied]
    # Users in a seeded random order; skips (missing values) still leave n questions.
    order = rng_for(seed, dataset, measure_id, "users").permutation(len(windows))
    questions, report = knowledge.build(m, dataset, [windows[i] for i in order], items, seed,
                                        item_texts=item_texts, limit=validity.asked(n_questions),
                                        exclude=(exclude_values or {}).get(m.field), debias=debias,
                                        counts=interactions["item_id"].astype(str).value_counts().to_dict()
                                        if debias is not None and debias.matched else None)
    report["windows_examined"] = len(questions) + sum(report["skipped"].values())
    questions, checked = filtered(questions, n_questions, m, interactions, items, validity, seed, dataset,
                                  exclude_values)
    if checked is not None:
        report["validity"] = checked
    questions = sorted(questions[: n_questions] if n_questions else questions, key=lambda q: q["qid"])
    # what a knowledge-free answerer may know of each option (the shortcut rows, the audit's findings)
    signals.attach(questions, signals.popularity(interactions, items, m.field))
    report.update({
        "dataset": dataset, "measure": measure_id, "seed": seed, "history_length": history_length,
        "users": int(users), "users_without_window": int(users - len(windows) - (tied if ties == "drop" else 0)),
        "ties": {"order": ties, "windows_with_tied_positive": int(tied),
                 "users_dropped": int(tied) if ties == "drop" else 0,
                 "questions_with_tied_positive": sum(q["tied_positive"] for q in questions)},
        "questions": len(questions), "requested": n_questions,
    })
    report["targets_tried"] = shortfall.targets_tried(report)
    if (short := shortfall.shortfall(report)) is not None:
        report["short"] = short
    if (backed := witnesses.summary(report)) is not None:
        # how many sources back the golds, in the words every table, card and caption shows
        report["gold_sources"] = {**backed, "described": witnesses.describe(backed)}
    if not questions:
        raise QuestionError(no_question_line(dataset, measure_id, m, report["skipped"]))
    return questions, report


def check_artifact_questions(questions: list[dict], dataset: str, measure_id: str, interactions: pd.DataFrame,
                             items: pd.DataFrame, artifacts, item_table) -> None:
    """QuestionError in one line when a ground-truth measure built no question (a dataset too small
    for 10 candidates: an error, not an empty file that would only fail at scoring), or a question
    shows an item without a row in items.parquet (its prompt would have no title)."""
    if not questions:
        raise QuestionError(f"datasets.{dataset}: {measure_id}: no question could be built from "
                            f"{', '.join(map(str, artifacts))} ({interactions['user_id'].nunique()} users, "
                            f"{interactions['item_id'].nunique()} items: too small for 10 candidates?)")
    known = set(items["item_id"].astype(str))
    for q in questions:
        shown = list(q["candidates"]) if q["candidate_kind"] == "item" else []
        ctx = q["context"]
        shown += ctx.get("antecedents", []) + ctx.get("history", []) + ([ctx["target_item"]] if "target_item" in ctx else [])
        shown += [i for h in ctx.get("candidate_histories", {}).values() for i in h]
        missing = [i for i in shown if i not in known]
        if missing:
            raise QuestionError(f"{q['qid']}: item(s) {missing[:5]} not in {item_table}")
