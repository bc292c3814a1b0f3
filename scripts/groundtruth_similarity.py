"""Snakemake: sampled targets + candidates with cosine -> {kind}_similar_pairs.parquet."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import runlog
from lrworld.groundtruth.similarity import similar_pairs
from lrworld.core.io import write_parquet
from lrworld.prompts.render import item_keys
from lrworld.questions.distractors import Debias

sm = snakemake  # noqa: F821
log = runlog.setup(sm)
p = sm.params.similarity
inter = pd.read_parquet(sm.input.interactions)
# item candidates are shown by title: look-alikes are never two options (users have no title)
display = item_keys(pd.read_parquet(sm.input.item_table)) if sm.wildcards.kind == "item" else None
pairs, stats = similar_pairs(inter, sm.wildcards.kind, int(sm.params.n_questions), threshold=p["threshold"],
                             seed=int(sm.params.seed), min_degree=p["min_degree"],
                             fallback_quantile=p["fallback_quantile"], dataset=sm.wildcards.dataset,
                             display=display, margin=float(sm.params.margin),
                             debias=Debias(sm.params.distractors, sm.params.max_gold_share))
log.info("similar_pairs %s", runlog.stats_line(stats))
write_parquet(sm.output.pairs, pairs)
