"""A full disk in the middle of the graph, on real ML-100K with the random model: ingest with its
results folder full, then the answer job with its cache folder full (size-limited tmpfs mounts in
a private mount namespace). Each stops with one line naming the folder and writes no output; the
cache stays readable; once space is freed, one rerun gives the results of a clean run. A
read-only results folder is refused at start."""

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lrworld.core import io
from tests.graph import snakemake

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def can_mount() -> bool:
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"],
                           capture_output=True)
    return probe.returncode == 0


needs_mount = pytest.mark.skipif(not can_mount(), reason="no private mount namespace (unshare -m) here")


def config(work: Path, shared_data: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    cfg = {"cache_dir": ".lrworld-cache", "questions": {"history_length": 5, "per_measure": 30},
           "variants": ["zero_shot"], "analysis": {"enabled": False},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": ["attr_genre"]}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))


SCRIPT = r"""
set -u
W=$1; OUT=$2; shift 2
SMK="$* -s {root}/Snakefile -d $W --cores 2"
fill() {{ dd if=/dev/zero of=$1/filler bs=4k 2>/dev/null; dd if=/dev/zero of=$1/filler2 bs=512 2>/dev/null; true; }}
mkdir -p $W/results $W/.lrworld-cache
mount -t tmpfs -o size=32m tmpfs $W/results
mount -t tmpfs -o size=4m tmpfs $W/.lrworld-cache
# ingest with the results folder full
fill $W/results
$SMK results/data/ml/interactions.parquet > $OUT/ingest.out 2>&1; echo $? > $OUT/ingest.rc
ls -R $W/results > $OUT/ingest.ls
cp $W/logs/ingest/ml.log $OUT/ingest.log 2>/dev/null
rm $W/results/filler $W/results/filler2
# every job before the answers, then the answer job with the cache folder full but 24 KiB
$SMK --omit-from answer > $OUT/prompts.out 2>&1; echo $? > $OUT/prompts.rc
fill $W/.lrworld-cache
python3 -c "import os; f='$W/.lrworld-cache/filler'; os.truncate(f, os.path.getsize(f) - 24576)"
$SMK > $OUT/answer.out 2>&1; echo $? > $OUT/answer.rc
cp -r $W/.lrworld-cache/responses $OUT/cache-at-full 2>/dev/null
ls -R $W/results/answers > $OUT/answer.ls 2>&1
cp $W/logs/answer/lrworld/ml/random.log $OUT/answer.log 2>/dev/null
# space freed: one rerun
rm -f $W/.lrworld-cache/filler*
$SMK > $OUT/resume.out 2>&1; echo $? > $OUT/resume.rc
cp -r $W/results $OUT/results
"""


@needs_mount
def test_full_disk_in_ingest_and_answer_then_resume(tmp_path, shared_data):
    clean = tmp_path / "clean"
    config(clean, shared_data)
    snakemake(clean)
    work, out = tmp_path / "full", tmp_path / "out"
    config(work, shared_data)
    out.mkdir()
    script = tmp_path / "run.sh"
    script.write_text(SCRIPT.format(root=ROOT))
    proc = subprocess.run(["unshare", "-m", "bash", str(script), str(work), str(out), sys.executable, "-m", "snakemake"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rc = {k: int((out / f"{k}.rc").read_text()) for k in ("ingest", "prompts", "answer", "resume")}
    assert rc == {"ingest": 1, "prompts": 0, "answer": 1, "resume": 0}, (rc, (out / "answer.out").read_text()[-3000:])
    # ingest: one line naming the results folder, nothing half-written
    ingest_log = (out / "ingest.log").read_text().strip().splitlines()
    assert "ERROR results/data/ml: the file system is full" in ingest_log[-1], ingest_log[-3:]
    assert ".parquet" not in (out / "ingest.ls").read_text()
    # answer: one line naming the cache folder, no summary, and the shard opens with what it stored
    answer_log = (out / "answer.log").read_text().strip().splitlines()
    assert "the file system is full" in answer_log[-1] and ".lrworld-cache" in answer_log[-1], answer_log[-3:]
    assert "random.json" not in (out / "answer.ls").read_text()
    for shard in (out / "cache-at-full").rglob("*.sqlite"):
        with sqlite3.connect(shard) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            db.execute("SELECT COUNT(*) FROM responses").fetchone()
    # resumed: the clean run's responses and table

    def responses(root):
        return {f.relative_to(root).as_posix(): [(r["qid"], r["raw_text"], r["parsed"]) for r in io.read_jsonl(f)]
                for f in sorted((root / "responses").rglob("*.jsonl"))}

    assert responses(out / "results") == responses(clean / "results") and responses(clean / "results")
    assert (out / "results/tables/ml.csv").read_text() == (clean / "results/tables/ml.csv").read_text()


@needs_mount
def test_a_read_only_results_folder_is_refused_at_start(tmp_path, shared_data):
    config(tmp_path, shared_data)
    (tmp_path / "results").mkdir()
    proc = subprocess.run(["unshare", "-m", "sh", "-c",
                           f"mount --bind -o ro {tmp_path}/results {tmp_path}/results && "
                           f"{sys.executable} -m snakemake -s {ROOT}/Snakefile -d {tmp_path} --cores 1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if "not writable" in line]
    assert lines == [f"results: {tmp_path}/results: not writable (read-only: Read-only file system); "
                     f"the run writes results there"], (proc.stdout + proc.stderr)[-2000:]
    assert list((tmp_path / "results").iterdir()) == []
