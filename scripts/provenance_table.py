"""Snakemake entry: the provenance record of one results table (cell -> score -> its record)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.provenance.record import table_markdown, table_record

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
records = [str(f) for f in smk.input.records]
rec = table_record(smk.input.csv, smk.input.md, smk.input.table_job, records, dict(smk.params.cfg),
                   str(Path(smk.scriptdir).parent), smk.wildcards.dataset)
log.info("%d cells in table %s", len(rec["cells"]), smk.input.csv)
io.write_json(smk.output.record, rec)
io.write_text(smk.output.md, table_markdown(rec, {f: io.read_json(f) for f in records}))
