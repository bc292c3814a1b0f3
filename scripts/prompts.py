"""Snakemake entry: render a measure's questions with one template variant."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import runlog
from lrworld.questions.jobs.prompts import run

run(snakemake, runlog.setup(snakemake))  # noqa: F821
