"""Snakemake: questions of one hit10 measure -> results/questions/{dataset}/{measure}.jsonl."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import runlog
from lrworld.questions.jobs.gt_questions import run

run(snakemake, runlog.setup(snakemake))  # noqa: F821
