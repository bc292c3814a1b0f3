"""Snakemake entry: the per-dataset SRBench table (CSV + Markdown with the rank-sum summary)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.tracks.srbench import steps

sm = snakemake  # noqa: F821
steps.table(sm.params.names, sm.input.scores, sm.output.csv, sm.output.md, sm.config, sm.wildcards.sr_dataset)
