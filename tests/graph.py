"""Running the real Snakemake CLI from tests, and reading its dry-run plan."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_checkout(dest: Path, names) -> Path:
    """The checkout's `names` (files or folders) copied under dest (created), to change as a user would."""
    dest.mkdir(parents=True)
    for name in names:
        src = ROOT / name
        (shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__")) if src.is_dir()
         else shutil.copy2(src, dest / name))
    return dest


def snakemake(workdir, *args, snakefile: Path = ROOT / "Snakefile", check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(snakefile), "-d", str(workdir),
                           "--cores", "2", *args], capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


def job_counts(dry_run_stdout: str) -> dict[str, int]:
    """{rule: count} from a dry run's 'Job stats' table ({} when nothing is to be done)."""
    if "Nothing to be done" in dry_run_stdout:
        return {}
    lines = dry_run_stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Job stats"))
    counts = {}
    for line in lines[start + 3:]:
        parts = line.split()
        if len(parts) != 2 or parts[0] == "total":
            break
        counts[parts[0]] = int(parts[1])
    return counts
