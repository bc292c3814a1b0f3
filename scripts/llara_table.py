"""Snakemake: the LLaRA table (rows = models, columns = dataset x {HitRatio@1, valid ratio})."""
from lrworld.llara.pipeline import run_table

run_table(list(snakemake.input.scores), snakemake.output.csv, snakemake.output.md)  # noqa: F821
