"""Snakemake entry: the results browser's front page (results/site/index.html)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import io, runlog
from lrworld.scoring.table import FIGURES
from lrworld.site.render import index_page

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
tables = []
for ds, csv in zip(smk.params.datasets, smk.input.tables):
    t = pd.read_csv(csv)
    cols = [c for c in t.columns[1:] if not any(c.endswith(f"_{f}") for f in FIGURES)]
    tables.append({"dataset": ds, "domain": smk.params.domains[ds], "models": len(t), "columns": len(cols)})
io.write_text(smk.output.index, index_page(tables))
