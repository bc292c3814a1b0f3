"""Snakemake entry: the provenance record of one score (its chain back to the raw files)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.data.inputs import metadata_files
from lrworld.provenance.record import score_record

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
roles = ("score", "score_job", "responses", "summary", "prompts", "template", "questions", "questions_report",
         "audit", "interactions", "ingest_report")
inp = {r: str(smk.input[r]) for r in roles} | {"items": str(smk.input.item_table),
                                               "ground_truth": [str(f) for f in smk.input.ground_truth]}
meta = metadata_files({k: smk.input[k] for k in smk.input.keys()})
rec = score_record(inp, [str(f) for f in smk.input.raw], meta, dict(smk.params.cfg),
                   {k: list(v) for k, v in smk.params.rule_code.items()}, str(Path(smk.scriptdir).parent), dict(smk.wildcards.items()))
log.info("%d files in the chain of %s", len(rec["chain"]), inp["score"])
io.write_json(smk.output.record, rec)
