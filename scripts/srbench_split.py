"""Snakemake entry: load one SRBench dataset and write its leave-one-out split and items."""
from lrworld.srbench import steps

sm = snakemake  # noqa: F821  (injected by Snakemake's script: directive)
ds = sm.wildcards.dataset
steps.split(ds, sm.config["srbench"]["datasets"][ds], sm.output.split, sm.output.item_table)
