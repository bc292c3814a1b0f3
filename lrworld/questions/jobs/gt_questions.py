"""Rule gt_questions: one ground-truth measure's questions from its artifact."""

from __future__ import annotations

import logging

import pandas as pd

from lrworld.core import io
from lrworld.prompts.render import item_keys
from lrworld.questions import measures, shortfall
from lrworld.questions.build import check_artifact_questions
from lrworld.questions.builders import build_from_artifact
from lrworld.questions.distractors import Debias
from lrworld.questions.validity import Validity


def run(job, log: logging.Logger) -> None:
    measure, dataset, p = job.wildcards.gt_measure, job.wildcards.dataset, job.params
    inter = pd.read_parquet(job.input.interactions)
    items = pd.read_parquet(job.input.item_table)
    artifact = pd.concat([pd.read_parquet(f) for f in job.input.artifact], ignore_index=True)
    qs, built = build_from_artifact(measures.by_id(measure), inter, artifact, int(p.n_questions), int(p.seed), dataset,
                                    display=item_keys(items), debias=Debias(p.distractors, p.max_gold_share),
                                    items=items, exclude_values=dict(p.exclude_values),
                                    validity=Validity.of(p.validity), user_items=int(p.user_items))
    # no question, or one showing an item without a row in items.parquet: one line, nothing written
    check_artifact_questions(qs, dataset, measure, inter, items, job.input.artifact, job.input.item_table)
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
