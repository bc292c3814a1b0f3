"""Snakemake entry: train one NN baseline with one seed -> its lists JSONL and training record."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.core import runlog
from lrworld.core.threads import limit_torch_threads
from lrworld.tracks.srbench import steps

sm = snakemake  # noqa: F821
log = runlog.setup(sm)
limit_torch_threads(sm.threads)
info = steps.baseline(sm.wildcards.sr_dataset, sm.wildcards.sr_baseline, int(sm.wildcards.sr_seed), sm.input.split,
                      sm.input.item_table, sm.output.lists, sm.output.training, sm.config, log=log.info)
log.info("best epoch %s of %s run (cap %s), %.1f s", info["best_epoch"], info["epochs_run"], info["max_epochs"],
         info["fit_s"])
