"""Snakemake entry: render a measure's questions with one template variant."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import io, runlog
from lrworld.core.package_files import packaged
from lrworld.prompts.variants import render_variant_all
from lrworld.questions.measures import by_id

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
prompts = render_variant_all(io.read_jsonl(smk.input.questions), packaged(smk.params.template),
                             pd.read_parquet(smk.input.item_table), smk.wildcards.variant,
                             seed=int(smk.params.seed), kshot_default=int(smk.params.kshot_k),
                             exclude_values=dict(smk.params.exclude_values),
                             profile=by_id(smk.wildcards.measure).profile, user_items=int(smk.params.user_items))
log.info("%d prompts rendered from %s", len(prompts), smk.params.template)
io.write_jsonl(smk.output.prompts, prompts)
