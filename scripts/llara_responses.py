"""Snakemake entry: one LLM's answers to one dataset's LLaRA prompts, read from the response cache."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.tracks.llara.pipeline import run_responses

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
n = run_responses(smk.input.prompts, smk.wildcards.llm, io.read_json(smk.input.answered)["identity"],
                  smk.params.cache_dir, smk.output.responses)
log.info("%d responses of %s", n, smk.wildcards.llm)
