"""Snakemake entry: one results table's heatmap (models x measures) and radar (over the factors)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.analysis.plots import heatmap, radar
from lrworld.core import runlog
from lrworld.questions import measures
from lrworld.scoring.table import value_columns

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
ds, domain = smk.wildcards.dataset, smk.params.domain
table = pd.read_csv(smk.input.table)
cols = value_columns(table)
degenerate = table[["model"] + [f"{c}_degenerate" for c in cols]].set_axis(["model"] + cols, axis=1)
heatmap(table[["model"] + cols], degenerate, smk.output.heatmap_png[:-4], f"{ds}: models x measures")
# the radar's axes: the zero-shot columns (a variant's column is the same factor again)
axes = [c for c in cols if "@" not in c]
radar(table[["model"] + axes], [f"{c}\n({measures.get(domain, c).factor})" for c in axes], smk.output.radar_png[:-4],
      f"{ds}: the factors")
