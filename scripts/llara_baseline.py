"""Snakemake: train one traditional recommender and pick among each frozen candidate set."""
from lrworld.io import write_json
from lrworld.llara.pipeline import run_baseline

p = snakemake.params  # noqa: F821
info = run_baseline(snakemake.wildcards.dataset, p.cfg, snakemake.input.candidates, snakemake.wildcards.name,  # noqa: F821
                    snakemake.output.responses, epochs=int(p.epochs), seed=int(p.seed), hparams=p.hparams,  # noqa: F821
                    val_fraction=float(p.val_fraction), patience=int(p.patience))
write_json(snakemake.output.info, info)  # noqa: F821
