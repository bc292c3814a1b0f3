"""Snakemake entry: SRBench metrics of one recommender's lists (a baseline: one file per seed)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.tracks.srbench import steps

sm = snakemake  # noqa: F821
steps.score(sm.wildcards.sr_dataset, sm.input.split, sm.input.item_table, list(sm.input.lists), sm.output[0],
            sm.config, training_paths=list(sm.input.training))
