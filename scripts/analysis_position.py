"""Snakemake entry: position bias, the score under re-drawn answer slots (Tables 6 and 11)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import runlog
from lrworld.analysis import plots
from lrworld.analysis.output import write_table
from lrworld.analysis.position import position_bias

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
table = position_bias(pd.read_csv(smk.input.scores))
ds = smk.wildcards.dataset
write_table(table, str(Path(smk.output.position_csv).with_suffix("")), f"{ds}: position bias",
            note="Score per slot seed (shuffle<s>), their mean, sample variance and std (ddof=1).")
plots.position_boxes(table, str(Path(smk.output.position_png).with_suffix("")), f"{ds}: position bias")
log.info("\n%s", table)
