"""Snakemake entry: T seeds of one NN baseline on one dataset -> lists JSONL."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
import torch

from lrworld.tracks.srbench import steps

torch.set_num_threads(int(snakemake.threads))  # noqa: F821
sm = snakemake  # noqa: F821
steps.lists(sm.wildcards.sr_dataset, sm.wildcards.baseline, sm.input.split, sm.input.item_table, sm.output[0], sm.config)
