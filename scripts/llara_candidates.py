"""Snakemake: frozen LLaRA candidate sets for one dataset."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.tracks.llara.pipeline import run_candidates

p = snakemake.params  # noqa: F821
run_candidates(snakemake.wildcards.ll_dataset, p.cfg, seed=int(p.seed), n=int(p.n_candidates),  # noqa: F821
               out=snakemake.output.candidates, out_summary=snakemake.output.summary)  # noqa: F821
