"""Snakemake entry: the paper-style results table of one dataset (CSV and Markdown)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.provenance.environment import JobClock
from lrworld.scoring.table import results_table, to_markdown

smk = snakemake  # noqa: F821
clock = JobClock()
log = runlog.setup(smk)
table = results_table([io.read_json(f) for f in smk.input.scores], smk.params.domain, list(smk.params.models))
io.write_text(smk.output.csv, table.to_csv(index=False, float_format="%.4f", lineterminator="\n"))
io.write_text(smk.output.md, to_markdown(table, smk.wildcards.dataset) + (
    f"\nProvenance of every cell: `results/provenance/{smk.wildcards.dataset}/table.json`; "
    f"trace one with `lrworld explain {smk.output.csv} <model> <column>`.\n"))
log.info("\n%s", table)
clock.write(smk, smk.output.job)
