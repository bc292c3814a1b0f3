"""Snakemake entry: the report card of one measure."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import io, runlog
from lrworld.core.package_files import packaged
from lrworld.questions import measures, witnesses
from lrworld.analysis.report_cards import card_html
from lrworld.paper import figures as paper

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
w = smk.wildcards
m = measures.get(smk.params.domain, w.measure)
example = io.read_jsonl(smk.input.prompts)[0]
scores = pd.read_csv(smk.input.scores)
paper_ds = smk.params.paper_dataset
figs = {model: fig for model, name in dict(smk.params.paper_names).items()
        if name and (fig := paper.figure(paper_ds, name, w.measure)) is not None} if paper_ds else {}
report = io.read_json(smk.input.questions_report)
gold_sources = witnesses.summary(report)  # a knowledge measure: how many sources back its golds
label = f"Table {paper.RESULTS_TABLE[paper_ds]}, LRWorld-{paper_ds}" if figs else ""
io.write_text(smk.output.card, card_html(w.dataset, w.measure, packaged(smk.params.template).read_text(encoding="utf-8"),
                                         example, scores, list(smk.params.models),
                                         f"{m.scale} / {m.factor} ({m.qtype}, {m.primary_metric})", figs, label,
                                         short=(report.get("short") or {}).get("reason"),
                                         witnessed=witnesses.describe(gold_sources) if gold_sources else None))
log.info("card written")
