"""Snakemake entry: one (measure, variant)'s per-sample responses, read from the cache."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.inference.stage import collect_responses
from lrworld.inference.cache import ResponseCache

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
identity = io.read_json(smk.input.answered)["identity"]
cache = ResponseCache(Path(smk.params.cache_dir) / f"{smk.wildcards.model}.sqlite")
records = collect_responses(io.read_jsonl(smk.input.prompts), identity, cache)
log.info("%d responses, %d unparsed", len(records), sum(r["parsed"] is None for r in records))
io.write_jsonl(smk.output.responses, records)
