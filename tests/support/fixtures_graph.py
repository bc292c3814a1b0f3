"""A one-measure graph for answer-job tests: real ML-100K attr_genre questions, the given models,
run with the real Snakemake CLI (in a subprocess the test can signal)."""

from __future__ import annotations

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
