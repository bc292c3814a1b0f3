"""Snakemake entry: docs/generated/<table>.md, one results table with its provenance."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.docsgen.snippet import render

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
inp = smk.input
# a stale record (StaleRecord, an lrworld error) ends the job with its one line
text = render(smk.wildcards.table, smk.params.rule, inp.md, inp.csv, record=inp.get("record"),
              sources=[str(f) for f in inp.get("sources", [])])
io.write_text(smk.output[0], text)
log.info("wrote %s from %s", smk.output[0], inp.md)
