"""Snakemake entry: LLM-SR requests of one dataset and mode (T runs of every evaluated user)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import runlog
from lrworld.tracks.srbench import steps

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
n = steps.llm_prompts(smk.wildcards.sr_dataset, smk.wildcards.mode, smk.input.split, smk.input.item_table,
                      smk.output.prompts, smk.params.settings)
log.info("%d requests (%d runs)", n, smk.params.settings["runs"])
