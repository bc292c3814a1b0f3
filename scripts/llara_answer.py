"""Snakemake: one LLM (spine backend) answers one dataset's LLaRA prompts."""
from lrworld.llara.pipeline import run_llm

run_llm(snakemake.input.prompts, snakemake.wildcards.model, snakemake.params.model_cfg,  # noqa: F821
        snakemake.output.responses)  # noqa: F821
