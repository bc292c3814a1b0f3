"""Snakemake: k-means prototypes over NeuMF embeddings -> prototypes.parquet (both directions)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import runlog
from lrworld.groundtruth.jobs.prototypes import run

run(snakemake, runlog.setup(snakemake))  # noqa: F821
