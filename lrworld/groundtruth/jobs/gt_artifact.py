"""Rule gt_artifact: interactions -> an artifact that names its function
(lrworld/groundtruth/artifacts.py, `make="module:attr"`)."""

from __future__ import annotations

import logging

import pandas as pd

from lrworld.core.io import write_parquet
from lrworld.core.registry import resolve


def run(job, log: logging.Logger) -> None:
    table = resolve(job.params.make)(pd.read_parquet(job.input.interactions), int(job.params.n_questions),
                                     int(job.params.seed), job.wildcards.dataset)
    write_parquet(job.output.artifact, table)
    log.info(f"{job.wildcards.artifact}: {len(table)} rows by {job.params.make}")
