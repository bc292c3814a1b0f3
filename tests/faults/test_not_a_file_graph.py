"""Nothing is read that is not a regular file: a `path:` source file or a local release member that
is a FIFO (its open would wait for a writer forever) or a link to /dev/zero (never ends) stops
`snakemake -n` in one line naming it within seconds, where the plan's content digest used to hang."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from lrworld.release.layout import FORMAT, pairs
from lrworld.release.pack import verify

ROOT = Path(__file__).resolve().parents[2]
RAW = ("u.data", "u.item", "u.user", "u.genre", "u.occupation", "u.info")


def fifo(path: Path) -> None:
    os.mkfifo(path)


def zero(path: Path) -> None:
    os.symlink("/dev/zero", path)


def dry_run(folder: Path, source: dict) -> tuple[str, float]:
    cfg = {"cache_dir": ".lrworld-cache", "questions": {"history_length": 5, "per_measure": 20},
           "variants": ["zero_shot"], "analysis": {"enabled": False},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "source": source, "measures": ["attr_genre"]}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    (folder / "run.yaml").write_text(yaml.safe_dump(cfg))
    t0 = time.monotonic()
    # the timeout turns a regression (a hang) into a failure
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(folder),
                           "-n", "--cores", "1", "--configfile", str(folder / "run.yaml")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    return proc.stdout + proc.stderr, time.monotonic() - t0


@pytest.mark.parametrize("make, what", [(fifo, "a FIFO"), (zero, "a character device")])
def test_a_path_source_file_that_is_not_a_regular_file_stops_the_plan_in_one_line(tmp_path, shared_data, make, what):
    src = tmp_path / "src"
    src.mkdir()
    for name in RAW:
        if name != "u.data":
            shutil.copy2(shared_data / "movielens-100k/raw" / name, src / name)
    make(src / "u.data")
    out, took = dry_run(tmp_path, {"path": "src"})
    line = f"config: datasets.ml.source.path: src/u.data: {what}, not a regular file (lrworld reads only regular files)"
    assert [x for x in out.splitlines() if "u.data" in x] == [line], out[-2000:]
    assert "Traceback" not in out and took < 60


def release(folder: Path) -> Path:
    """A release folder of ML-100K attr_genre whose every member is a small plain file."""
    files = {}
    for rel, _ in pairs("ml", ["attr_genre"], ["zero_shot"]):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(f"{rel}\n")
        files[rel] = hashlib.sha256(f"{rel}\n".encode()).hexdigest()
    (folder / "release.json").write_text(json.dumps({"format": FORMAT, "domain": "movie", "measures": ["attr_genre"],
                                                     "variants": ["zero_shot"], "files": files}))
    return folder


@pytest.mark.parametrize("make, what", [(fifo, "a FIFO"), (zero, "a symbolic link")])
def test_a_release_member_that_is_not_a_regular_file_stops_the_plan_in_one_line(tmp_path, make, what):
    rel = release(tmp_path / "rel")
    member = rel / "questions/attr_genre.jsonl"
    member.unlink()
    make(member)
    out, took = dry_run(tmp_path, {"benchmark": str(rel)})
    line = (f"config: datasets.ml.source.benchmark: {member}: {what}, not a regular file (a release names only "
            "plain files inside its folder; `lrworld verify` lists them)")
    assert [x for x in out.splitlines() if "attr_genre.jsonl" in x] == [line], out[-2000:]
    assert "Traceback" not in out and took < 60
    # verify names the same file with the same check
    assert verify(rel)["problems"] == [{"path": "questions/attr_genre.jsonl", "status": "not_a_file"}]

