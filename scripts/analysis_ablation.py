"""Snakemake entry: noise drop (Table 23), model size (Table 25) or k-shot (Fig. 7) tables."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import runlog
from lrworld.analysis import ablation, plots
from lrworld.analysis.output import write_table

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
scores, paired = pd.read_csv(smk.input.scores), pd.read_csv(smk.input.paired)
ds, what = smk.wildcards.dataset, smk.params.what
if what == "noise":
    t = ablation.noise_drop(scores, paired)
    write_table(t, str(Path(smk.output.noise_drop_csv).with_suffix("")), f"{ds}: noisy-profile drop",
                note="rel_change = (noisy - zero_shot) / zero_shot; diff CI: paired bootstrap on the same questions.")
    plots.noise_bars(t, str(Path(smk.output.noise_drop_png).with_suffix("")), f"{ds}: noisy profile")
elif what == "model_size":
    t = ablation.model_size(scores, list(smk.params.pairs))
    write_table(t, str(Path(smk.output.model_size_csv).with_suffix("")), f"{ds}: model size",
                note="rel_change = (large - small) / small, per configured pair (analysis.model_pairs).")
else:
    t = ablation.kshot_curve(scores, int(smk.params.k))
    write_table(t, str(Path(smk.output.kshot_csv).with_suffix("")), f"{ds}: k-shot",
                note="k = 0 is zero_shot; examples come from other users' questions of the same measure.")
    plots.kshot_lines(t, str(Path(smk.output.kshot_png).with_suffix("")), f"{ds}: k-shot")
log.info("\n%s", t)
