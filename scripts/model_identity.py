"""Snakemake entry: the weights part of one model's identity (its params), as a file the answer
and score jobs read."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io

smk = snakemake  # noqa: F821
io.write_json(smk.output.identity, {"model": smk.wildcards.model, **dict(smk.params.weights)})
