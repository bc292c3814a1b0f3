"""Snakemake entry: raw dataset files -> aligned interactions/items/users Parquet."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.data.contract import DataError
from lrworld.data.ingest import ingest_with_facts
from lrworld.data.inputs import metadata_paths, raw_dir as raw_dir_of
from lrworld.data.sources import check_manifest

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
cfg = smk.params.cfg
raw_dir = raw_dir_of(cfg, smk.input.raw)
named = {k: smk.input[k] for k in smk.input.keys()}
try:
    for manifest in [*(f for f in smk.input.raw if Path(f).name == "manifest.json"),
                     *([named["metadata_manifest"]] if isinstance(named.get("metadata_manifest"), str)
                       else named.get("metadata_manifest", []))]:
        check_manifest(manifest)  # a raw copy edited after its download is not read
    inter, items, users, report, facts = ingest_with_facts(smk.wildcards.dataset, cfg, raw_dir, metadata_paths(cfg, named))
except DataError as exc:
    log.error("%s", exc)  # one line naming the file, row or key
    raise SystemExit(1) from None
log.info("ingest report: %s", report)
io.write_parquet(smk.output.interactions, inter)
io.write_parquet(smk.output.item_table, items)
io.write_parquet(smk.output.users, users)
io.write_parquet(smk.output.facts, facts)
io.write_json(smk.output.report, report)
