"""Snakemake entry: download a benchmark release archive (sha256 checked), unpack and verify it."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import runlog
from lrworld.release.fetch import fetch
from lrworld.release.pack import ReleaseError

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
try:
    fetch(smk.wildcards.dataset, dict(smk.params.source), smk.params.domain, Path(smk.output.manifest).parent,
          Path(smk.params.downloads), log, smk.config.get("max_extract_bytes"))
except ReleaseError as exc:
    log.error("%s", exc)
    raise SystemExit(1) from None
