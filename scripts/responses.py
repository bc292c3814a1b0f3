"""Snakemake entry: answer prompts with one model, through the durable response cache."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld import io, runlog
from lrworld.inference import answer_prompts
from lrworld.models.base import make_backend
from lrworld.models.cache import ResponseCache

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
model = smk.wildcards.model
cache = ResponseCache(Path(smk.params.cache_dir) / f"{model}.sqlite")
records, summary = answer_prompts(io.read_jsonl(smk.input.prompts),
                                  lambda: make_backend(model, dict(smk.params.model_cfg)), cache)
log.info("model %s: asked %d, from cache %d", model, summary["asked"], summary["cached"])
io.write_jsonl(smk.output.responses, records)
io.write_json(smk.output.summary, summary)
