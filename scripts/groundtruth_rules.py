"""Snakemake: mine association rules -> rules.parquet (rule assoc_rules)."""

import sys
from pathlib import Path

sys.path[:0] = [snakemake.scriptdir, str(Path(snakemake.scriptdir).parent)]  # noqa: F821

import pandas as pd
from groundtruth_common import Log

from lrworld.groundtruth.rules import mine_rules
from lrworld.core.io import write_parquet

sm = snakemake  # noqa: F821  (injected by Snakemake)
log = Log(sm.log[0])
p = sm.params.assoc
inter = pd.read_parquet(sm.input.interactions)
rules, stats = mine_rules(inter, min_support=p["min_support"], min_confidence=p["min_confidence"],
                          max_len=p["max_len"], window=p["window"], algorithm=p["algorithm"])
log.stats("rules", stats)
write_parquet(sm.output.rules, rules)
log(f"wrote {len(rules)} rules to {sm.output.rules}")
