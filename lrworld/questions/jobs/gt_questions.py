"""Rule gt_questions: one ground-truth measure's questions from its artifact."""

from __future__ import annotations

import logging

import pandas as pd

from lrworld.core import io
from lrworld.prompts.render import item_keys
from lrworld.questions import measures, shortfall
from lrworld.questions.builders import build_from_artifact
from lrworld.questions.distractors import Debias


def _unknown_items(questions: list[dict], items: pd.DataFrame) -> tuple[str, list[str]] | None:
    """The first question that shows an item (candidate or context) the item table has no row of."""
    known = set(items["item_id"].astype(str))
    for q in questions:
        shown = list(q["candidates"]) if q["candidate_kind"] == "item" else []
        ctx = q["context"]
        shown += ctx.get("antecedents", []) + ctx.get("history", []) + (
            [ctx["target_item"]] if "target_item" in ctx else [])
        shown += [i for h in ctx.get("candidate_histories", {}).values() for i in h]
        if missing := [i for i in shown if i not in known]:
            return q["qid"], missing
    return None


def run(job, log: logging.Logger) -> None:
    measure, dataset, p = job.wildcards.gt_measure, job.wildcards.dataset, job.params
    inter = pd.read_parquet(job.input.interactions)
    items = pd.read_parquet(job.input.item_table)
    artifact = pd.concat([pd.read_parquet(f) for f in job.input.artifact], ignore_index=True)
    qs, built = build_from_artifact(measures.by_id(measure), inter, artifact, int(p.n_questions), int(p.seed), dataset,
                                    display=item_keys(items), debias=Debias(p.distractors, p.max_gold_share),
                                    items=items, exclude_values=dict(p.exclude_values))
    if not qs:
        # A dataset too small for 10 candidates (9 negatives besides the answer) is an error, not an
        # empty question file that would only fail later at scoring.
        raise ValueError(f"datasets.{dataset}: {measure}: no question could be built from "
                         f"{', '.join(map(str, job.input.artifact))} ({inter['user_id'].nunique()} users, "
                         f"{inter['item_id'].nunique()} items: too small for 10 candidates?)")
    # every item shown must have a row in items.parquet, or the prompt has no title
    if (unknown := _unknown_items(qs, items)) is not None:
        raise ValueError(f"{unknown[0]}: item(s) {unknown[1][:5]} not in {job.input.item_table}")
    n = io.write_jsonl(job.output.questions, qs)
    report = {"dataset": dataset, "measure": measure, "seed": int(p.seed), "requested": int(p.n_questions),
              "questions": n, "artifacts": list(job.input.artifact), **built}
    report["targets_tried"] = shortfall.targets_tried(report)
    if (short := shortfall.shortfall(report)) is not None:
        report["short"] = short  # the mark and reason a table caption and report card show
    io.write_json(job.output.report, report)
    log.info(f"{measure}: wrote {n} questions (asked for {p.n_questions})")
    if n < int(p.n_questions):
        log.warning(f"fewer questions than asked: the artifact has only {n} eligible targets/rules")
