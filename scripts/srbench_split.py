"""Snakemake entry: load one SRBench dataset and write its leave-one-out split and items."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.tracks.srbench import steps

sm = snakemake  # noqa: F821
steps.split(sm.wildcards.sr_dataset, sm.params.spec, sm.output.split, sm.output.item_table)
