"""Snakemake entry: the paper-style results table of one dataset (CSV, Markdown and booktabs TeX),
each value with its n, bootstrap interval and paired difference to RANDOM; and the paper's
figures beside ours (`<dataset>.paper.csv/.md`)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.analysis.load import responses_frame
from lrworld.audit import validity
from lrworld.core import io, runlog
from lrworld.provenance.environment import JobClock
from lrworld.scoring import paper_comparison as beside
from lrworld.questions import witnesses
from lrworld.scoring.table import (figures, results_table, to_markdown, to_tex, uncertainty, with_learned,
                                   with_marks)

smk = snakemake  # noqa: F821
clock = JobClock()
log = runlog.setup(smk)
ds, domain, models, boot = smk.wildcards.dataset, smk.params.domain, list(smk.params.models), smk.params.bootstrap
scores = [io.read_json(f) for f in smk.input.scores]
table = results_table(scores, domain, models)
figs = figures(scores, table, uncertainty(responses_frame(smk.input.responses), models, **boot))
# the audit's validity controls: the learned knowledge-free answerer's row, ¶ and ∅ on the columns
audit = io.read_json(smk.input.audit) if hasattr(smk.input, "audit") else {}
table, figs = with_learned(table, figs, audit)
checked = (validity.found(audit), validity.unanswerable(audit))
# measures with fewer questions than asked: marked in the caption with their reports' reason
reports = [io.read_json(f) for f in getattr(smk.input, "question_reports", [])]
short = {r["measure"]: r["short"]["reason"] for r in reports if r.get("short")}
# knowledge measures: the share of golds one source alone backs, marked ‡ with the sources
witnessed = witnesses.from_reports(reports)
wide = with_marks(table, figs, reports, audit)
io.write_text(smk.output.csv, wide.to_csv(index=False, float_format="%.4f", lineterminator="\n"))
paper_ds = smk.params.paper_dataset
comp = beside.comparison(wide, scores, domain, paper_ds, dict(smk.params.paper_names))
io.write_text(smk.output.paper_csv, comp.to_csv(index=False, float_format="%.4f", lineterminator="\n"))
io.write_text(smk.output.paper_md, beside.to_markdown(comp, ds, paper_ds, boot["confidence"]))
main_md = to_markdown(table, ds, domain, figs, boot["confidence"], boot["n_boot"], short, witnessed, checked)
io.write_text(smk.output.md, main_md + "\n".join(
    [""] + beside.beside_section(comp, table, paper_ds, boot["confidence"])) + (
    f"\nProvenance of every cell: `results/provenance/{ds}/table.json`; "
    f"trace one with `lrworld explain {smk.output.csv} <model> <column>`.\n"))
io.write_text(smk.output.tex, to_tex(table, ds, domain, figs, boot["confidence"], boot["n_boot"], short, witnessed,
                                     checked))
log.info("\n%s", table)
clock.write(smk, smk.output.job)
