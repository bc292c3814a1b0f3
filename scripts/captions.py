"""Snakemake entry: a dataset's image captions, read from the response cache the captioner's
answer job filled."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.captions.requests import captions_table
from lrworld.core import io, runlog
from lrworld.inference.shards import ModelCache
from lrworld.inference.stage import read_answers

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
reqs = io.read_jsonl(smk.input.requests)
identity = io.read_json(smk.input.answered)["identity"]
cache = ModelCache(smk.params.cache_dir, "captioner")
table, report = captions_table(reqs, [a for _, a in read_answers(reqs, identity, cache)], identity,
                               io.read_json(smk.input.images_report))
log.info("%d captions, %d empty", report["items_with_caption"], report["empty_captions"])
io.write_parquet(smk.output.captions, table)
io.write_json(smk.output.report, report)
