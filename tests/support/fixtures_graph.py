"""A one-measure graph for answer-job tests: real ML-100K attr_genre questions, the given models,
run with the real Snakemake CLI (in a subprocess the test can signal)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def write_config(workdir: Path, shared_data: Path, models: dict, per_measure: int) -> None:
    cfg = {"seed": 11, "cache_dir": str(workdir / "cache"),
           "questions": {"history_length": 5, "per_measure": per_measure}, "variants": ["zero_shot"],
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": ["attr_genre"]}},
           "models": models}
    (workdir / "config.yaml").write_text(yaml.safe_dump(cfg))


def smk_cmd(workdir: Path, *targets: str) -> list[str]:
    return [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir), "--cores", "2", *targets]


UPSTREAM_QUESTIONS = 8  # the answer-job tests' question count: a few answered before a signal can come


def build_upstream(workdir: Path, shared_data: Path) -> Path:
    """The graph up to the answer job (ingest, questions, prompts, audits, code stamp) for UPSTREAM_QUESTIONS
    questions, built once per test session (tests/conftest.py's answer_upstream)."""
    write_config(workdir, shared_data, {"random": {"backend": "random"}}, UPSTREAM_QUESTIONS)
    target = "results/responses/ml/random/attr_genre/zero_shot.jsonl"
    # not the model's identity either: each test's models have their own
    proc = subprocess.run(smk_cmd(workdir, target, "--omit-from", "answer", "model_identity"), capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise AssertionError(proc.stderr[-3000:])
    return workdir


def workdir_from(upstream: Path, dest: Path, shared_data: Path, models: dict) -> Path:
    """A copy of the upstream build (mtimes kept) at dest, configured for `models`: Snakemake plans
    only the models' own jobs there (a copied build plans nothing new: tests/provenance/test_relocatable.py)."""
    shutil.copytree(upstream, dest, symlinks=True)
    write_config(dest, shared_data, models, UPSTREAM_QUESTIONS)
    return dest
