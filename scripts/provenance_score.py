"""Snakemake entry: the provenance records of a (dataset, model, measure), one per variant (each
score's chain back to the raw files)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.core.digests import DigestStore
from lrworld.provenance.record import score_record

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
files = smk.params.files
rule_code = {k: list(v) for k, v in smk.params.rule_code.items()}
plugin_files = {k: list(v) for k, v in smk.params.plugins.items()}
root = str(Path(smk.scriptdir).parent)
# the variants' chains share the raw files, the data and the code, and so do the jobs of a dataset:
# a file of 1 MB or more is read once until its bytes change (a paper-size raw file is gigabytes)
digests = DigestStore(min_bytes=1 << 20)
for variant in smk.params.variants:
    inp = dict(files["roles"][variant])
    rec = score_record(inp, list(files["raw"]), list(files["metadata"]), dict(smk.params.cfg[variant]), rule_code,
                       root, {**dict(smk.wildcards.items()), "variant": variant}, digests.sha256, plugin_files)
    log.info("%d files in the chain of %s", len(rec["chain"]), inp["score"])
    io.write_json(smk.output[variant] if variant in smk.output.keys() else smk.output[0], rec)
digests.save()
