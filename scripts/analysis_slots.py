"""Snakemake entry: the correct answer's slot distribution per measure (Tables 12-14), for the
questions and for each shuffle<s> variant's prompts."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import io, runlog
from lrworld.analysis.output import write_table
from lrworld.analysis.position import slot_distribution

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
parts = []
for f in smk.input.questions:
    parts.append(slot_distribution(io.read_jsonl(f), Path(f).stem, "questions"))
for f in smk.input.prompts:
    parts.append(slot_distribution(io.read_jsonl(f), Path(f).parent.name, Path(f).stem))
table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
stem = str(Path(smk.output.slots_csv).with_suffix(""))
write_table(table, stem, f"{smk.wildcards.dataset}: correct-answer slot distribution",
            note="Counts and shares of the gold answer's slot; 'questions' is the built question file, "
                 "shuffle<s> the candidates re-drawn under seed s.")
log.info("\n%s", table)
