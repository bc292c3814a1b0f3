"""Snakemake: train one traditional recommender and pick among each frozen candidate set."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.core.io import write_json
from lrworld.tracks.llara.pipeline import run_baseline

p = snakemake.params  # noqa: F821
info = run_baseline(snakemake.wildcards.ll_dataset, p.cfg, snakemake.input.candidates, snakemake.wildcards.baseline,  # noqa: F821
                    snakemake.output.responses, epochs=int(p.epochs), seed=int(p.seed), hparams=p.hparams,  # noqa: F821
                    val_fraction=float(p.val_fraction), patience=int(p.patience))
write_json(snakemake.output.info, info)  # noqa: F821
