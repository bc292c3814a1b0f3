"""Rule assoc_rules: interactions -> mined association rules."""

from __future__ import annotations

import logging

import pandas as pd

from lrworld.core import runlog
from lrworld.core.io import write_parquet
from lrworld.groundtruth.rules import mine_rules


def run(job, log: logging.Logger) -> None:
    p = job.params.assoc
    rules, stats = mine_rules(pd.read_parquet(job.input.interactions), min_support=p["min_support"],
                              min_confidence=p["min_confidence"], max_len=p["max_len"], window=p["window"],
                              algorithm=p["algorithm"])
    log.info("rules %s", runlog.stats_line(stats))
    write_parquet(job.output.rules, rules)
    log.info(f"wrote {len(rules)} rules to {job.output.rules}")
