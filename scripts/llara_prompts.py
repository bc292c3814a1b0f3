"""Snakemake: render LLaRA prompts from a template file."""
from lrworld.llara.pipeline import run_prompts

run_prompts(snakemake.input.candidates, snakemake.params.template, snakemake.output.prompts,  # noqa: F821
            item_suffix=snakemake.params.item_suffix)  # noqa: F821
