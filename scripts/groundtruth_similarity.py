"""Snakemake: sampled targets + candidates with cosine -> {kind}_similar_pairs.parquet."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import runlog
from lrworld.groundtruth.jobs.similar_pairs import run

run(snakemake, runlog.setup(snakemake))  # noqa: F821
