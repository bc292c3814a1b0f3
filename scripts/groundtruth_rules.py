"""Snakemake: mine association rules -> rules.parquet (rule assoc_rules)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import runlog
from lrworld.groundtruth.rules import mine_rules
from lrworld.core.io import write_parquet

sm = snakemake  # noqa: F821  (injected by Snakemake)
log = runlog.setup(sm)
p = sm.params.assoc
inter = pd.read_parquet(sm.input.interactions)
rules, stats = mine_rules(inter, min_support=p["min_support"], min_confidence=p["min_confidence"],
                          max_len=p["max_len"], window=p["window"], algorithm=p["algorithm"])
log.info("rules %s", runlog.stats_line(stats))
write_parquet(sm.output.rules, rules)
log.info(f"wrote {len(rules)} rules to {sm.output.rules}")
