"""Planning loads no model library: `snakemake -n` on the default config discovers every
backend, recommender and track from the registries, and none of them imports torch, transformers
or an API client until a job runs (importing torch costs 3-5 s of a dry run on 2 cores)."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "transformers", "accelerate", "openai", "xllamacpp", "gguf")

# the real CLI (`python -m snakemake`), and at its exit the modules it had loaded
PROBE = f"""
import atexit, runpy, sys
def report():
    loaded = set(m.split(".")[0] for m in sys.modules)
    print("PLANNED", "lrworld.workflow.plan" in sys.modules, "LOADED", sorted(loaded & set({HEAVY!r})))
atexit.register(report)
sys.argv = ["snakemake"] + sys.argv[1:]
runpy.run_module("snakemake", run_name="__main__")
"""


def test_a_dry_run_imports_no_model_library(tmp_path):
    shutil.copy(ROOT / "config.yaml", tmp_path)  # the Snakefile's configfile, read from the workdir
    proc = subprocess.run([sys.executable, "-c", PROBE, "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "--cores", "1", "-n", "--quiet", "rules"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "PLANNED True LOADED []" in proc.stdout, proc.stdout[-2000:]
