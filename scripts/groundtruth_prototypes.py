"""Snakemake: k-means prototypes over NeuMF embeddings -> prototypes.parquet (both directions)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import runlog
from lrworld.core.threads import limit_torch_threads
from lrworld.groundtruth.prototypes import all_prototypes
from lrworld.core.io import write_parquet
from lrworld.prompts.render import item_keys
from lrworld.questions.distractors import Debias

sm = snakemake  # noqa: F821
log = runlog.setup(sm)
limit_torch_threads(sm.threads)
p = sm.params.kmeans
inter = pd.read_parquet(sm.input.interactions)
emb = pd.read_parquet(sm.input.embeddings)
table, stats = all_prototypes(emb, inter, int(sm.params.n_questions), k=p["k"], seed=int(sm.params.seed),
                              n_positives=p["n_positives"], threads=sm.threads, dataset=sm.wildcards.dataset,
                              display=item_keys(pd.read_parquet(sm.input.item_table)),
                              margin=float(sm.params.margin), min_interactions=int(sm.params.min_interactions),
                              debias=Debias(sm.params.distractors, sm.params.max_gold_share))
log.info("prototypes %s", runlog.stats_line(stats))
write_parquet(sm.output.prototypes, table)
