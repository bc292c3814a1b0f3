"""Snakemake entry: the results browser's front page (results/site/index.html) and a page per
LLaRA / SRBench table (results/site/tracks/<name>.html)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import io, runlog
from lrworld.scoring.table import value_columns
from lrworld.site.render import index_page, track_page

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
tables = []
for ds, csv in zip(smk.params.datasets, smk.input.tables):
    t = pd.read_csv(csv)
    cols = value_columns(t)
    tables.append({"dataset": ds, "domain": smk.params.domains[ds], "models": len(t), "columns": len(cols)})
tracks = []
for csv, page in zip(smk.input.track_tables, smk.output.tracks):
    t = pd.read_csv(csv)
    name = Path(csv).stem
    io.write_text(page, track_page(name, t, csv))
    tracks.append({"name": name, "rows": len(t), "columns": len(t.columns) - 1})
io.write_text(smk.output.index, index_page(tables, tracks))
