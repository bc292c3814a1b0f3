"""Snakemake entry: popularity bias (A.9), NON-POP share among errors and among correct answers."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import io, runlog
from lrworld.analysis import plots
from lrworld.analysis.load import responses_frame
from lrworld.analysis.output import write_table
from lrworld.analysis.popularity import nonpop_shares, popularity_split

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
split, thr = popularity_split(pd.read_parquet(smk.input.interactions, columns=["item_id"]))
target_of = {q["qid"]: q.get("target_item") for f in smk.input.questions for q in io.read_jsonl(f)}
table = nonpop_shares(responses_frame(smk.input.responses), target_of, split)
ds = smk.wildcards.dataset
n_pop = sum(v == "POP" for v in split.values())
write_table(table, str(Path(smk.output.popularity_csv).with_suffix("")), f"{ds}: popularity bias",
            note=f"Items split at the mean log-frequency ({thr:.4f}): {n_pop} POP, {len(split) - n_pop} NON-POP. "
                 "An answer is classed by its question's target item.")
plots.popularity_bars(table, str(Path(smk.output.popularity_png).with_suffix("")), f"{ds}: NON-POP share")
log.info("threshold %.4f\n%s", thr, table)
