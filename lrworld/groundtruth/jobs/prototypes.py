"""Rule prototypes: NeuMF embeddings -> k-means prototypes with their candidates (both directions)."""

from __future__ import annotations

import logging

import pandas as pd

from lrworld.core import runlog
from lrworld.core.io import write_parquet
from lrworld.core.threads import limit_torch_threads
from lrworld.groundtruth.prototypes import all_prototypes
from lrworld.prompts.render import item_keys
from lrworld.questions.distractors import Debias
from lrworld.questions.validity import Validity
from lrworld.questions.option_features import closeness_of


def run(job, log: logging.Logger) -> None:
    debias = Debias(job.params.distractors, job.params.max_gold_share)
    limit_torch_threads(job.threads)
    p = job.params.kmeans
    # the targets asked: overdraw x the questions under the filter (lrworld/questions/validity.py)
    asked = Validity.of(job.params.validity).asked(int(job.params.n_questions))
    table, stats = all_prototypes(pd.read_parquet(job.input.embeddings), pd.read_parquet(job.input.interactions),
                                  asked, k=p["k"], seed=int(job.params.seed),
                                  n_positives=p["n_positives"], threads=job.threads, dataset=job.wildcards.dataset,
                                  display=item_keys(pd.read_parquet(job.input.item_table)),
                                  margin=float(job.params.margin), min_interactions=int(job.params.min_interactions),
                                  debias=debias, closeness=closeness_of(job, debias),
                                  preferences=_preferences(job))
    log.info("prototypes %s", runlog.stats_line(stats))
    write_parquet(job.output.prototypes, table)


def _preferences(job):
    """The trained NeuMF's predicted preferences where `groundtruth.neural.gold` is score, else None."""
    if job.params.gold != "score":
        return None
    from lrworld.core.tensors import load_tensors
    from lrworld.groundtruth.neumf import Preferences

    return Preferences(load_tensors(job.input.model, "NeuMF weights"))
