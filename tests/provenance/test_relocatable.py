"""A built checkout moved to another folder: it plans nothing, verifies after the
original folder is gone, and no file under results/ names the folder it was built in. Real
ML-100K from ../shared/data, the random model; the graph runs in a copy of the checkout."""

import shutil
from pathlib import Path

import pytest
import yaml

from lrworld.cli import main
from tests.graph import copy_checkout, job_counts, snakemake

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
COPY = ["Snakefile", "rules", "scripts", "lrworld", "envs", "docs", "config.yaml"]


def checkout(dest: Path, shared_data: Path) -> Path:
    copy_checkout(dest, COPY)
    cfg = {"cache_dir": ".lrworld-cache", "questions": {"history_length": 5, "per_measure": 20},
           "variants": ["zero_shot", "cot"], "analysis": {"enabled": False},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")},
                               "measures": ["attr_genre", "mem_item_item"]}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    (dest / "small.yaml").write_text(yaml.safe_dump(cfg))
    return dest


def smk(folder: Path, *args):
    return snakemake(folder, "--configfile", str(folder / "small.yaml"), *args, snakefile=folder / "Snakefile")


def test_a_moved_build_plans_nothing_verifies_and_names_no_old_path(tmp_path, shared_data, capsys):
    built = checkout(tmp_path / "built-here", shared_data)
    planned = job_counts(smk(built, "-n").stdout)
    assert planned["prompts"] == 4 and planned["score"] == 2  # 2 measures x 2 variants; one score job per measure
    smk(built)
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(built, moved)  # the original folder is gone
    assert not built.exists()

    assert job_counts(smk(moved, "-n").stdout) == {}
    assert main(["verify", "-d", str(moved)]) == 0
    assert "verify: OK" in capsys.readouterr().out
    old = str(built).encode()
    named = [p for p in (moved / "results").rglob("*") if p.is_file() and old in p.read_bytes()]
    assert named == []

    # the template is a param by content: new bytes in the moved copy's template still re-run its prompts
    tpl = moved / "lrworld/templates/movie/attr_genre/cot.txt"
    tpl.write_text(tpl.read_text() + "\nAnswer with one letter.\n")
    assert job_counts(smk(moved, "-n").stdout)["prompts"] == 1
