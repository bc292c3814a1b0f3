"""Snakemake entry: describe each item's image (poster / product photo) with the configured
vision-language model, through the (image sha256, captioner) cache."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import io, runlog
from lrworld.captions.fetch import FetchPolicy
from lrworld.captions.images import CaptionError
from lrworld.captions.run import caption_items

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
p = smk.params
ds = smk.wildcards.dataset
policy = FetchPolicy(max_bytes=int(p.captioner["max_image_bytes"]), timeout_s=float(p.captioner["image_timeout_s"]))
try:
    table, report = caption_items(pd.read_parquet(smk.input.item_table), p.captioner, Path(p.cache_dir) / "captions",
                                  policy, image_dir=p.image_dir, log=log)
except CaptionError as exc:
    runlog.fail(log, f"datasets.{ds}: {exc}")
report["dataset"] = ds
log.info("captions report: %s", {k: v for k, v in report.items() if k != "failures"})
for line in report["failures"]:
    log.info("skipped %s", line)
io.write_parquet(smk.output.captions, table)
io.write_json(smk.output.report, report)
