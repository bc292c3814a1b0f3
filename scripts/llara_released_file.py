"""Snakemake: a released LLaRA checkpoint and its rec model for one dataset, checked against their sha256."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.core import runlog
from lrworld.tracks.llara.hybrid.released import fetch_file

sm = snakemake  # noqa: F821
log = runlog.setup(sm)
where = f"config: llara.checkpoint.datasets.{sm.wildcards.ll_dataset}"
try:
    for key in ("ckpt", "rec_model"):
        fetch_file(dict(getattr(sm.params, key)), getattr(sm.output, key), f"{where}.{key}", log)
except ValueError as exc:
    for key in ("ckpt", "rec_model"):
        Path(getattr(sm.output, key)).unlink(missing_ok=True)
    log.error("%s", exc)
    sys.exit(str(exc))
