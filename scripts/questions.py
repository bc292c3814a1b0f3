"""Snakemake entry: build one measure's questions from the aligned data."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import io, runlog
from lrworld.questions.build import build_questions
from lrworld.questions.distractors import Debias

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
p = smk.params
texts = None
if "captions" in smk.input.keys():
    cap = pd.read_parquet(smk.input.captions)
    texts = dict(zip(cap["item_id"].astype(str), cap["caption"]))
interactions, items = pd.read_parquet(smk.input.interactions), pd.read_parquet(smk.input.item_table)
questions, report = build_questions(
    smk.wildcards.dataset, p.domain, smk.wildcards.measure, interactions,
    items, int(p.history_length), p.per_measure, int(p.seed), item_texts=texts,
    ties=p.ties, exclude_values=dict(p.exclude_values), debias=Debias(p.distractors, p.max_gold_share))
log.info("questions report: %s", report)
io.write_jsonl(smk.output.questions, questions)
io.write_json(smk.output.report, report)
