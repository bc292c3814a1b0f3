"""Snakemake entry: the provenance records of a (dataset, model, measure), one per variant (each
score's chain back to the raw files)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.provenance.record import score_record

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
files = smk.params.files
rule_code = {k: list(v) for k, v in smk.params.rule_code.items()}
root = str(Path(smk.scriptdir).parent)
for variant in smk.params.variants:
    inp = dict(files["roles"][variant])
    rec = score_record(inp, list(files["raw"]), list(files["metadata"]), dict(smk.params.cfg[variant]), rule_code,
                       root, {**dict(smk.wildcards.items()), "variant": variant})
    log.info("%d files in the chain of %s", len(rec["chain"]), inp["score"])
    io.write_json(smk.output[variant], rec)
