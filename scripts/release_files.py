"""Snakemake entry: copy a benchmark release's files to the rule's outputs, each checked against
the sha256 its manifest lists (a changed release file stops the job naming it)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import runlog
from lrworld.release.copy import copy_checked
from lrworld.release.pack import ReleaseError

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
wc = dict(smk.wildcards.items())
try:
    copy_checked(Path(smk.input.manifest).parent, list(smk.params.files), list(smk.output), wc["dataset"],
                 [wc["measure"]] if "measure" in wc else [], [wc["variant"]] if "variant" in wc else [], pin=smk.params.pin)
except ReleaseError as exc:
    log.error("%s", exc)
    raise SystemExit(1) from None
log.info("%d release files copied and checked", len(smk.output))
