"""Snakemake entry: answer slot sequences compared between datasets (results/audit/_all.json)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.audit.report import audit_all
from lrworld.core import io, runlog

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
files = iter(smk.input.questions)
by_dataset = {ds: {m: (str(f), io.read_jsonl(f)) for m, f in zip(ms, files)} for ds, ms in smk.params.datasets.items()}
audit, violations = audit_all(by_dataset)
for v in violations:
    log.error("%s", v.line())
if violations:
    sys.exit(f"audit: {violations[0].line()}")
io.write_json(smk.output.json, audit)
