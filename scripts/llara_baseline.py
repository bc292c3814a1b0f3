"""Snakemake: train one traditional recommender with one seed and pick among each frozen candidate set."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.core import runlog
from lrworld.core.io import write_json
from lrworld.core.threads import limit_torch_threads
from lrworld.tracks.llara.pipeline import run_baseline

sm = snakemake  # noqa: F821
log = runlog.setup(sm)
limit_torch_threads(sm.threads)
p = sm.params
info = run_baseline(sm.wildcards.ll_dataset, p.cfg, sm.input.candidates, sm.wildcards.baseline, sm.output.responses,
                    max_epochs=int(p.max_epochs), seed=int(sm.wildcards.ll_seed), holdout_seed=int(p.holdout_seed),
                    val_fraction=float(p.val_fraction), patience=int(p.patience), hparams=p.hparams, log=log.info,
                    checkpoint=sm.output.checkpoint)
write_json(sm.output.info, info)
log.info("best epoch %s of %s run (cap %s), %.1f s", info["best_epoch"], info["epochs_run"], info["max_epochs"],
         info["seconds"])
