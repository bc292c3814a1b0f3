"""Snakemake: interactions -> a ground-truth artifact that names its function
(lrworld/groundtruth/artifacts.py, `make="module:attr"`)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import runlog
from lrworld.groundtruth.jobs.gt_artifact import run

run(snakemake, runlog.setup(snakemake))  # noqa: F821
