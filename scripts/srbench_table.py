"""Snakemake entry: the per-dataset SRBench table (CSV + Markdown with the rank-sum summary)."""
from lrworld.srbench import steps

sm = snakemake  # noqa: F821
steps.table(sm.params.names, sm.input.scores, sm.output.csv, sm.output.md, sm.config, sm.wildcards.dataset)
