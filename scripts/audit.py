"""Snakemake entry: audit one dataset's question and prompt files (results/audit/<dataset>.json|md).

A failed hard check ends the job with one line (file: question id: check: detail) and no output."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.audit import shortcuts, validity
from lrworld.groundtruth.positive_control import positive_controls
from lrworld.audit.report import audit_dataset, to_markdown
from lrworld.core import io, runlog
from lrworld.data.ingest import ingest_with_facts
from lrworld.data.inputs import metadata_paths, raw_dir
from lrworld.groundtruth.artifacts import name_of, read

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
questions = {m: (str(f), io.read_jsonl(f)) for m, f in zip(smk.params.measures, smk.input.questions)}
reports = {m: io.read_json(f) for m, f in zip(smk.params.measures, smk.input.reports)}
# results/prompts/<dataset>/<measure>/<variant>.jsonl
prompts = [(str(f), Path(f).parent.name, io.read_jsonl(f)) for f in smk.input.prompts]
raw_facts = None
if "raw" in smk.input.keys():
    # the knowledge golds re-derived from the raw files the config names, not from facts.parquet alone
    cfg = smk.params.ingest_cfg
    named = {k: smk.input[k] for k in smk.input.keys()}
    raw_facts = ingest_with_facts(smk.wildcards.dataset, cfg, raw_dir(cfg, smk.input.raw),
                                  metadata_paths(cfg, named))[4]
interactions, items = pd.read_parquet(smk.input.interactions), pd.read_parquet(smk.input.item_table)
artifacts = {name_of(f): read(f) for f in smk.input.artifacts}
facts = pd.read_parquet(smk.input.facts[0]) if smk.input.facts else None
audit, violations = audit_dataset(smk.wildcards.dataset, smk.params.domain, questions, prompts, reports,
                                  interactions, items, io.read_json(smk.input.ingest_report), artifacts, facts, raw_facts)
for v in violations:
    log.error("%s", v.line())
if violations:
    more = f" (and {len(violations) - 1} more, see {smk.log[0]})" if len(violations) > 1 else ""
    sys.exit(f"audit: {violations[0].line()}{more}")
# which measures a knowledge-free answerer passes (lrworld/audit/shortcuts.py)
audit["shortcuts"] = {"on_finding": smk.params.shortcuts, "measures": shortcuts.audit(questions, prompts)}
# the learned negative control and the positive control (lrworld/audit/validity.py)
records = {m: qs for m, (_, qs) in questions.items()}
learned = validity.learned_controls(smk.wildcards.dataset, smk.params.domain, records, interactions, items,
                                    dict(smk.params.exclude_values), int(smk.params.seed), smk.params.user_items)
weights = artifacts.get("neumf")
positive = positive_controls(smk.wildcards.dataset, smk.params.domain, records, interactions, items, facts,
                             weights.attrs.get("preferences") if weights is not None else None,
                             int(smk.params.seed), smk.params.assoc_window)
audit["validity"] = validity.controls(learned, positive, audit["shortcuts"]["measures"], reports)
found = shortcuts.finding_lines(smk.wildcards.dataset, audit["shortcuts"]["measures"])
found += validity.finding_lines(smk.wildcards.dataset, audit["validity"])
for m, why in validity.unanswerable(audit).items():
    log.warning("%s/%s: not answerable from the data: %s", smk.wildcards.dataset, m, why)
for line in found:
    log.warning("%s", line)
if found and smk.params.shortcuts == "fail":
    more = f" (and {len(found) - 1} more, see {smk.log[0]})" if len(found) > 1 else ""
    sys.exit(f"audit: {found[0]} (audit.shortcuts: fail){more}")
log.info("audit passed: %s; %d shortcut findings", audit["checked"], len(found))
io.write_json(smk.output.json, audit)
io.write_text(smk.output.md, to_markdown(audit) + "\n" + shortcuts.to_markdown(audit["shortcuts"]["measures"])
              + "\n" + validity.to_markdown(audit["validity"]))
