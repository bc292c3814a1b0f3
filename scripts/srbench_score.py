"""Snakemake entry: SRBench metrics of one recommender's lists."""
from lrworld.srbench import steps

sm = snakemake  # noqa: F821
steps.score(sm.wildcards.dataset, sm.input.split, sm.input.item_table, sm.input.lists, sm.output[0], sm.config)
