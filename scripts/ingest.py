"""Snakemake entry: raw dataset files -> aligned interactions/items/users Parquet."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.data.ingest import METADATA_KEYS, ingest

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
cfg = smk.params.cfg
raw_dir = Path(cfg["source"]["path"]) if "path" in cfg["source"] else Path(smk.input.raw[0]).parent
meta = {k: smk.input[k] for k in METADATA_KEYS if k in smk.input.keys()}
inter, items, users, report = ingest(smk.wildcards.dataset, cfg, raw_dir, meta)
log.info("ingest report: %s", report)
io.write_parquet(smk.output.interactions, inter)
io.write_parquet(smk.output.item_table, items)
io.write_parquet(smk.output.users, users)
io.write_json(smk.output.report, report)
