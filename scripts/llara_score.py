"""Snakemake: score one model on one dataset (LLaRA's parse; baselines by candidate index)."""
from lrworld.llara.pipeline import run_score

run_score(snakemake.input.candidates, snakemake.input.responses, snakemake.wildcards.model,  # noqa: F821
          snakemake.output.score, snakemake.output.per_question)  # noqa: F821
