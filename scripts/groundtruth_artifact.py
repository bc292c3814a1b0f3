"""Snakemake: interactions -> a ground-truth artifact that names its function
(lrworld/groundtruth/artifacts.py, `make="module:attr"`)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd

from lrworld.core import runlog
from lrworld.core.io import write_parquet
from lrworld.core.registry import resolve

sm = snakemake  # noqa: F821
log = runlog.setup(sm)
make = resolve(sm.params.make)
table = make(pd.read_parquet(sm.input.interactions), int(sm.params.n_questions), int(sm.params.seed),
             sm.wildcards.dataset)
write_parquet(sm.output.artifact, table)
log.info(f"{sm.wildcards.artifact}: {len(table)} rows by {sm.params.make}")
