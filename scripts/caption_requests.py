"""Snakemake entry: the caption requests of a dataset (one per item image: a local folder, an ABO
image file, or a checked download of the item's untrusted image URL)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.captions import requests
from lrworld.captions.fetch import FetchPolicy
from lrworld.captions.images import CaptionError
from lrworld.core import io, runlog
from lrworld.core.package_files import packaged

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
p, ds = smk.params, smk.wildcards.dataset
policy = FetchPolicy(max_bytes=int(p.captioner["max_image_bytes"]), timeout_s=float(p.captioner["image_timeout_s"]))
try:
    reqs, report = requests.build(ds, pd.read_parquet(smk.input.item_table), requests.instruction(packaged(smk.params.instruction)),
                                  Path(p.cache_dir) / "captions" / "images", policy, image_dir=p.image_dir)
except CaptionError as exc:
    runlog.fail(log, f"datasets.{ds}: {exc}")
report["dataset"] = ds
log.info("images: %s", {k: v for k, v in report.items() if k != "failures"})
for line in report["failures"]:
    log.info("skipped %s", line)
io.write_json(smk.output.images_report, report)
io.write_jsonl(smk.output.requests, reqs)
