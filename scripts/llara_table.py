"""Snakemake: the LLaRA table (rows = models, columns = dataset x {HitRatio@1, valid ratio}, the paper's beside)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.tracks.llara.pipeline import run_table

run_table(list(snakemake.input.scores), snakemake.output.csv, snakemake.output.md,  # noqa: F821
          paper_datasets=dict(snakemake.params.paper_datasets), kinds=dict(snakemake.params.row_kinds),  # noqa: F821
          paper_rows=dict(snakemake.params.paper_rows))  # noqa: F821
