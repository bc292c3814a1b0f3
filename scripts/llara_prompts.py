"""Snakemake: render LLaRA prompts from a template file."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.tracks.llara.pipeline import run_prompts

run_prompts(snakemake.input.candidates, snakemake.params.template, snakemake.output.prompts,  # noqa: F821
            item_suffix=snakemake.params.item_suffix)  # noqa: F821
