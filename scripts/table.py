"""Snakemake entry: the paper-style results table of one dataset (CSV and Markdown)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.provenance.environment import JobClock
from lrworld.scoring.table import marks, results_table, to_markdown, with_marks

smk = snakemake  # noqa: F821
clock = JobClock()
log = runlog.setup(smk)
scores = [io.read_json(f) for f in smk.input.scores]
table = results_table(scores, smk.params.domain, list(smk.params.models))
degenerate, debiased = marks(scores, table)
io.write_text(smk.output.csv, with_marks(table, degenerate, debiased).to_csv(index=False, float_format="%.4f",
                                                                             lineterminator="\n"))
io.write_text(smk.output.md, to_markdown(table, smk.wildcards.dataset, degenerate, debiased) + (
    f"\nProvenance of every cell: `results/provenance/{smk.wildcards.dataset}/table.json`; "
    f"trace one with `lrworld explain {smk.output.csv} <model> <column>`.\n"))
log.info("\n%s", table)
clock.write(smk, smk.output.job)
