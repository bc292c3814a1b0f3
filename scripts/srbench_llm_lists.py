"""Snakemake entry: one LLM's lists for one dataset and mode, read from the response cache."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.tracks.srbench import steps

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
records = steps.llm_lists(smk.wildcards.sr_dataset, smk.wildcards.model, smk.input.split, smk.input.item_table,
                          smk.input.prompts, io.read_json(smk.input.answered)["identity"], smk.params.cache_dir,
                          smk.output[0], int(smk.params.kmax))
log.info("%d lists, %d hallucinated ids", len(records), sum(len(r["hallucinated"]) for r in records))
