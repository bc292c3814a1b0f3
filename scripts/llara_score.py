"""Snakemake: score one model on one dataset (LLaRA's parse; baselines by candidate index)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.tracks.llara.pipeline import run_score

run_score(snakemake.input.candidates, snakemake.input.responses, snakemake.wildcards.row,  # noqa: F821
          snakemake.output.score, snakemake.output.per_question, seeds=snakemake.params.seeds)  # noqa: F821
