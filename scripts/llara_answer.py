"""Snakemake: one LLM (spine backend) answers one dataset's LLaRA prompts."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.tracks.llara.pipeline import run_llm

run_llm(snakemake.input.prompts, snakemake.wildcards.llm, snakemake.params.model_cfg,  # noqa: F821
        snakemake.output.responses, cache_dir=snakemake.params.cache_dir)  # noqa: F821
