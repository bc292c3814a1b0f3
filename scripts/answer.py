"""Snakemake entry: one model answers every uncached request of one track's scope (weights
loaded once), through the durable response cache."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache
from lrworld.models.registry import make_backend

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
model = smk.wildcards.model
requests = [r for f in smk.input.requests for r in io.read_jsonl(f)]
cache = ResponseCache(Path(smk.params.cache_dir) / f"{model}.sqlite")
info = fill_cache(requests, lambda: make_backend(model, dict(smk.params.model_cfg)), cache)
log.info("model %s: %d prompts, asked %d, from cache %d", model, info["prompts"], info["asked"], info["cached"])
info["prompt_files"] = {f: io.sha256_file(f) for f in smk.input.requests}
io.write_json(smk.output.answered, info)
