"""Rule similar_pairs: interactions -> sampled targets with their candidates and cosines."""

from __future__ import annotations

import logging

import pandas as pd

from lrworld.core import runlog
from lrworld.core.io import write_parquet
from lrworld.groundtruth.similarity import similar_pairs
from lrworld.prompts.render import item_keys
from lrworld.questions.distractors import Debias
from lrworld.questions.validity import Validity
from lrworld.questions.option_features import closeness_of


def run(job, log: logging.Logger) -> None:
    debias = Debias(job.params.distractors, job.params.max_gold_share)
    p, kind = job.params.similarity, job.wildcards.kind
    # item candidates are shown by title: look-alikes are never two options (users have no title)
    display = item_keys(pd.read_parquet(job.input.item_table)) if kind == "item" else None
    # the targets asked: overdraw x the questions under the filter (lrworld/questions/validity.py)
    asked = Validity.of(job.params.validity).asked(int(job.params.n_questions))
    pairs, stats = similar_pairs(pd.read_parquet(job.input.interactions), kind, asked,
                                 threshold=p["threshold"], seed=int(job.params.seed), min_degree=p["min_degree"],
                                 fallback_quantile=p["fallback_quantile"], dataset=job.wildcards.dataset,
                                 display=display, margin=float(job.params.margin),
                                 debias=debias, closeness=closeness_of(job, debias))
    log.info("similar_pairs %s", runlog.stats_line(stats))
    write_parquet(job.output.pairs, pairs)
