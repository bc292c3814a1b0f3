"""A run never reports success with an output missing, and a refused job leaves the previous
outputs where they were: through the real Snakemake CLI on real ML-100K with the random model, a
deleted answer summary is rebuilt by the next plain run, and a release file edited after its copy
stops the run at start in one line naming it, the copy made before kept in results/."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lrworld.cli import main
from tests.faults.test_content_digests_graph import config, smk
from tests.graph import job_counts

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(tmp_path_factory, shared_data):
    folder = tmp_path_factory.mktemp("outputs") / "built"
    config(folder, {"path": str(shared_data / "movielens-100k/raw")})
    smk(folder)
    return folder


def test_a_deleted_answer_summary_is_rebuilt_by_the_next_plain_run(built, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(built, run, symlinks=True)
    summary = run / "results/answers/lrworld/ml/random.json"
    before = json.loads(summary.read_text())
    table = (run / "results/tables/ml.csv").read_bytes()
    summary.unlink()
    assert job_counts(smk(run, "-n").stdout).get("answer") == 1
    smk(run)
    after = json.loads(summary.read_text())
    # every prompt already in the cache: nothing asked again, the same replies recorded
    assert after["replies_sha256"] == before["replies_sha256"] and after["identity"] == before["identity"]
    assert (run / "results/tables/ml.csv").read_bytes() == table
    second = smk(run, "-n").stdout
    assert job_counts(second) == {}, smk(run, "--list-changes", "params").stdout[-3000:]
    assert main(["verify", "-d", str(run)]) == 0


def test_a_release_file_edited_after_its_copy_stops_the_run_and_keeps_the_copy(built, tmp_path):
    release = tmp_path / "release"
    assert main(["pack", "ml", str(release), "-d", str(built)]) == 0
    run = tmp_path / "run"
    config(run, {"benchmark": str(release)})
    smk(run)
    copied = run / "results/questions/ml/attr_genre.jsonl"
    kept = copied.read_bytes()
    edited = release / "questions/attr_genre.jsonl"
    lines = edited.read_text().splitlines(keepends=True)
    edited.write_text("".join(lines[:-1]))  # the manifest still lists the old bytes
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(run),
                           "--cores", "1", "--configfile", str(run / "run.yaml")],
                          capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    named = [x for x in out.splitlines() if "differs from the release manifest" in x]
    assert len(named) == 1 and named[0].startswith(f"config: datasets.ml.source.benchmark: {edited}: sha256 "), out[-2000:]
    assert "Traceback" not in out
    assert copied.read_bytes() == kept
