"""Snakemake: questions of one hit10 measure -> results/questions/{dataset}/{measure}.jsonl."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import runlog
from lrworld.questions.build import check_artifact_questions
from lrworld.questions.builders import build_from_artifact
from lrworld.questions import measures, shortfall
from lrworld.core.io import write_json, write_jsonl
from lrworld.prompts.render import item_keys
from lrworld.questions.distractors import Debias

sm = snakemake  # noqa: F821
log = runlog.setup(sm)
measure, dataset = sm.wildcards.gt_measure, sm.wildcards.dataset
inter = pd.read_parquet(sm.input.interactions)
items = pd.read_parquet(sm.input.item_table)
artifact = pd.concat([pd.read_parquet(f) for f in sm.input.artifact], ignore_index=True)
debias = Debias(sm.params.distractors, sm.params.max_gold_share)
qs, built = build_from_artifact(measures.by_id(measure), inter, artifact, int(sm.params.n_questions),
                                int(sm.params.seed), dataset, display=item_keys(items), debias=debias, items=items,
                                exclude_values=dict(sm.params.exclude_values))
check_artifact_questions(qs, dataset, measure, inter, items, sm.input.artifact, sm.input.item_table)
n = write_jsonl(sm.output.questions, qs)
report = {"dataset": dataset, "measure": measure, "seed": int(sm.params.seed),
          "requested": int(sm.params.n_questions), "questions": n, "artifacts": list(sm.input.artifact), **built}
report["targets_tried"] = shortfall.targets_tried(report)
if (short := shortfall.shortfall(report)) is not None:
    report["short"] = short  # the mark and reason a table caption and report card show
write_json(sm.output.report, report)
log.info(f"{measure}: wrote {n} questions (asked for {sm.params.n_questions})")
if n < int(sm.params.n_questions):
    log.warning(f"fewer questions than asked: the artifact has only {n} eligible targets/rules")
