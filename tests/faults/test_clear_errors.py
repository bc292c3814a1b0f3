"""Unclear errors made clear: one line naming the file or key and what to do."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lrworld.cli import main
from lrworld.inference.cache import CacheError, ResponseCache
from tests.test_cli import workdir  # noqa: F401 - the provenance records of a small table

ROOT = Path(__file__).resolve().parents[2]


def test_a_corrupt_cache_names_its_file_and_what_to_do(tmp_path):
    bad = tmp_path / "m.sqlite"
    bad.write_bytes(b"SQLite format 3\x00" + os.urandom(3000))
    with pytest.raises(CacheError, match=rf"^{bad}: not a usable response cache \(DatabaseError: .*\); move it away "
                                         r"or delete it"):
        ResponseCache(bad)


def test_a_cache_dir_that_is_a_file_names_the_key(tmp_path):
    f = tmp_path / "cache"
    f.write_text("x")
    with pytest.raises(CacheError, match=rf"^cache_dir: {f} is a file, not a folder"):
        ResponseCache(f / "m.sqlite")


def test_explain_with_a_deleted_record_says_what_to_do(workdir, capsys):  # noqa: F811
    os.remove("results/provenance/ml/random/g/zero_shot.json")
    assert main(["explain", "results/tables/ml.csv", "random", "g"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("lrworld explain: ") and "zero_shot.json: the provenance record of random / g is missing" in err
    assert "rerun snakemake" in err and "\n" not in err and "Traceback" not in err
    assert main(["verify"]) == 1  # verify still reports it as missing


def test_explain_records_with_a_deleted_responses_file(workdir, capsys):  # noqa: F811
    os.remove("results/responses/ml/random/g/zero_shot.jsonl")
    assert main(["explain", "results/tables/ml.csv", "random", "g", "--records"]) == 2
    assert "zero_shot.jsonl: the responses file is missing" in capsys.readouterr().err


@pytest.mark.slow
def test_the_answer_job_ends_in_one_line_for_a_corrupt_cache(tmp_path, shared_data):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "random.sqlite").write_bytes(b"this is not a database" * 100)
    cfg = {"seed": 1, "cache_dir": str(cache), "questions": {"history_length": 5, "per_measure": 10},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": ["attr_genre"]}},
           "models": {"random": {"backend": "random"}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "--cores", "1", "results/answers/lrworld/ml/random.json"], capture_output=True, text=True)
    assert proc.returncode != 0
    log = (tmp_path / "logs/answer/lrworld/ml/random.log").read_text().strip().splitlines()
    assert log[-1].endswith(f"{cache / 'random.sqlite'}: not a usable response cache (DatabaseError: file is not a "
                            f"database); move it away or delete it, and its answers will be asked again")
    assert "Traceback" not in "\n".join(log)
