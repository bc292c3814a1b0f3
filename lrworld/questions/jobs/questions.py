"""Rule questions: one measure's questions from the aligned data (and a multimodal measure's captions)."""

from __future__ import annotations

import logging

import pandas as pd

from lrworld.core import io
from lrworld.questions.build import build_questions
from lrworld.questions.distractors import Debias
from lrworld.questions.validity import Validity


def run(job, log: logging.Logger) -> None:
    p = job.params
    texts = None
    if "captions" in job.input.keys():
        cap = pd.read_parquet(job.input.captions)
        texts = dict(zip(cap["item_id"].astype(str), cap["caption"]))
    questions, report = build_questions(
        job.wildcards.dataset, p.domain, job.wildcards.measure, pd.read_parquet(job.input.interactions),
        pd.read_parquet(job.input.item_table), int(p.history_length), p.per_measure, int(p.seed), item_texts=texts,
        ties=p.ties, exclude_values=dict(p.exclude_values), debias=Debias(p.distractors, p.max_gold_share),
        validity=Validity.of(p.validity))
    log.info("questions report: %s", report)
    io.write_jsonl(job.output.questions, questions)
    io.write_json(job.output.report, report)
