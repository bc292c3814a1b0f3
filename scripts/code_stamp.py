"""Snakemake entry: write a script's code digest and the files of its closure (rules/code.smk)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.core import io

smk = snakemake  # noqa: F821
io.write_json(smk.output.stamp, {"script": f"scripts/{smk.wildcards.script}.py", "sha256": smk.params.code,
                                 "files": list(smk.params.files)})
