"""Snakemake entry: copy a benchmark release's files to the rule's outputs, each checked against
the sha256 its manifest lists (a changed release file stops the job naming it)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import runlog
from lrworld.release.copy import copy_checked

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
copy_checked(list(smk.input), list(smk.output), list(smk.params.sha256))
log.info("%d release files copied and checked", len(smk.output))
